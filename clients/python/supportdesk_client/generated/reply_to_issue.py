from typing import Optional

from .base_model import BaseModel
from .fragments import IssueFields, MessageFields, MutationErrorFields


class ReplyToIssue(BaseModel):
    reply_to_issue: Optional["ReplyToIssueReplyToIssue"]


class ReplyToIssueReplyToIssue(BaseModel):
    issue: Optional["ReplyToIssueReplyToIssueIssue"]
    message: Optional["ReplyToIssueReplyToIssueMessage"]
    error: Optional["ReplyToIssueReplyToIssueError"]


ReplyToIssueReplyToIssueIssue = IssueFields
ReplyToIssueReplyToIssueMessage = MessageFields
ReplyToIssueReplyToIssueError = MutationErrorFields
ReplyToIssue.model_rebuild()
ReplyToIssueReplyToIssue.model_rebuild()
