from typing import Optional

from .base_model import BaseModel
from .fragments import MailboxFields, PageInfoFields


class Mailboxes(BaseModel):
    mailboxes: Optional["MailboxesMailboxes"]


class MailboxesMailboxes(BaseModel):
    total_count: int
    page_info: "MailboxesMailboxesPageInfo"
    edges: list["MailboxesMailboxesEdges"]


MailboxesMailboxesPageInfo = PageInfoFields


class MailboxesMailboxesEdges(BaseModel):
    cursor: str
    node: "MailboxesMailboxesEdgesNode"


MailboxesMailboxesEdgesNode = MailboxFields
Mailboxes.model_rebuild()
MailboxesMailboxes.model_rebuild()
MailboxesMailboxesEdges.model_rebuild()
