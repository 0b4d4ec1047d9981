from typing import Optional

from .base_model import BaseModel
from .fragments import MessageFields, PageInfoFields


class IssueMessages(BaseModel):
    issue: Optional["IssueMessagesIssue"]


class IssueMessagesIssue(BaseModel):
    messages: Optional["IssueMessagesIssueMessages"]


class IssueMessagesIssueMessages(BaseModel):
    total_count: int
    page_info: "IssueMessagesIssueMessagesPageInfo"
    edges: list["IssueMessagesIssueMessagesEdges"]


IssueMessagesIssueMessagesPageInfo = PageInfoFields


class IssueMessagesIssueMessagesEdges(BaseModel):
    cursor: str
    node: "IssueMessagesIssueMessagesEdgesNode"


IssueMessagesIssueMessagesEdgesNode = MessageFields
IssueMessages.model_rebuild()
IssueMessagesIssue.model_rebuild()
IssueMessagesIssueMessages.model_rebuild()
IssueMessagesIssueMessagesEdges.model_rebuild()
