from typing import Optional

from .base_model import BaseModel
from .fragments import MailboxFields, MutationErrorFields


class DeleteMailbox(BaseModel):
    delete_mailbox: Optional["DeleteMailboxDeleteMailbox"]


class DeleteMailboxDeleteMailbox(BaseModel):
    mailbox: Optional["DeleteMailboxDeleteMailboxMailbox"]
    error: Optional["DeleteMailboxDeleteMailboxError"]


DeleteMailboxDeleteMailboxMailbox = MailboxFields
DeleteMailboxDeleteMailboxError = MutationErrorFields
DeleteMailbox.model_rebuild()
DeleteMailboxDeleteMailbox.model_rebuild()
