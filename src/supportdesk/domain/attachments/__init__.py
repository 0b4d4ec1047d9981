"""Attachments: files uploaded in two steps (a mutation, then a PUT of the bytes), taken
by a message, downloaded by keys that read issues (docs/attachments.md)."""

from supportdesk.domain.attachments.attaching import attach, checked_ids
from supportdesk.domain.attachments.cleanup import remove_unattached
from supportdesk.domain.attachments.models import MAX_PER_MESSAGE, Attachment
from supportdesk.domain.attachments.queries import attachments_of_messages, open_attachment
from supportdesk.domain.attachments.uploads import create_upload, find_attachment, receive_upload

__all__ = [
    "MAX_PER_MESSAGE",
    "Attachment",
    "attach",
    "attachments_of_messages",
    "checked_ids",
    "create_upload",
    "find_attachment",
    "open_attachment",
    "receive_upload",
    "remove_unattached",
]
