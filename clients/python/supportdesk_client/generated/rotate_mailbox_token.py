from typing import Optional

from .base_model import BaseModel
from .fragments import MailboxFields, MutationErrorFields


class RotateMailboxToken(BaseModel):
    rotate_mailbox_token: Optional["RotateMailboxTokenRotateMailboxToken"]


class RotateMailboxTokenRotateMailboxToken(BaseModel):
    mailbox: Optional["RotateMailboxTokenRotateMailboxTokenMailbox"]
    inbound_token: Optional[str]
    error: Optional["RotateMailboxTokenRotateMailboxTokenError"]


RotateMailboxTokenRotateMailboxTokenMailbox = MailboxFields
RotateMailboxTokenRotateMailboxTokenError = MutationErrorFields
RotateMailboxToken.model_rebuild()
RotateMailboxTokenRotateMailboxToken.model_rebuild()
