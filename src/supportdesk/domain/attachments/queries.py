"""Reading attachments: those of many messages at once, and one's bytes."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence

from sqlalchemy import bindparam, select

from supportdesk.db import Database, Read, in_ids
from supportdesk.db.tables import attachments
from supportdesk.domain.attachments.models import ATTACHMENT_COLUMNS, Attachment, attachment_of
from supportdesk.domain.attachments.uploads import find_attachment
from supportdesk.domain.errors import not_found
from supportdesk.storage import ObjectStorage

# A message has at most 25: no page is needed. (The mailer reads a batch's with it too.)
ATTACHMENTS_OF_MESSAGES = Read(
    select(*ATTACHMENT_COLUMNS)
    .where(
        attachments.c.workspace_id == bindparam("workspace_id"),
        in_ids(attachments.c.message_id, "message_ids"),
    )
    .order_by(attachments.c.message_id, attachments.c.id),
    attachment_of,
)


async def attachments_of_messages(
    db: Database, workspace_id: str, message_ids: Sequence[str]
) -> dict[str, list[Attachment]]:
    """Each message's attachments in the order they were made (an empty list for none)."""
    found: dict[str, list[Attachment]] = {message_id: [] for message_id in message_ids}
    if not message_ids:
        return found
    for attachment in await db.fetch(
        ATTACHMENTS_OF_MESSAGES, workspace_id=workspace_id, message_ids=list(message_ids)
    ):
        assert attachment.message_id is not None
        found[attachment.message_id].append(attachment)
    return found


async def open_attachment(
    db: Database, storage: ObjectStorage, workspace_id: str, attachment_id: str
) -> tuple[Attachment, AsyncIterator[bytes]]:
    """An uploaded attachment of the workspace and its bytes as a stream; NOT_FOUND for
    any other id (another workspace's included) and for one whose bytes never came."""
    found = await find_attachment(db, workspace_id, attachment_id)
    if found is None or found.storage_key is None:
        raise not_found("Attachment")
    try:
        return found, await storage.read_stream(found.storage_key)
    except FileNotFoundError:
        raise not_found("Attachment") from None
