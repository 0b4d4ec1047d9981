from typing import Optional

from .base_model import BaseModel
from .fragments import MailboxFields, MutationErrorFields


class CreateMailbox(BaseModel):
    create_mailbox: Optional["CreateMailboxCreateMailbox"]


class CreateMailboxCreateMailbox(BaseModel):
    mailbox: Optional["CreateMailboxCreateMailboxMailbox"]
    inbound_token: Optional[str]
    error: Optional["CreateMailboxCreateMailboxError"]


CreateMailboxCreateMailboxMailbox = MailboxFields
CreateMailboxCreateMailboxError = MutationErrorFields
CreateMailbox.model_rebuild()
CreateMailboxCreateMailbox.model_rebuild()
