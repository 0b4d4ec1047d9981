from typing import Optional

from .base_model import BaseModel
from .fragments import MailboxFields, MutationErrorFields


class UpdateMailbox(BaseModel):
    update_mailbox: Optional["UpdateMailboxUpdateMailbox"]


class UpdateMailboxUpdateMailbox(BaseModel):
    mailbox: Optional["UpdateMailboxUpdateMailboxMailbox"]
    error: Optional["UpdateMailboxUpdateMailboxError"]


UpdateMailboxUpdateMailboxMailbox = MailboxFields
UpdateMailboxUpdateMailboxError = MutationErrorFields
UpdateMailbox.model_rebuild()
UpdateMailboxUpdateMailbox.model_rebuild()
