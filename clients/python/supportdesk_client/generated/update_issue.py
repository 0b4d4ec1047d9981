from typing import Optional

from .base_model import BaseModel
from .fragments import IssueFields, MutationErrorFields


class UpdateIssue(BaseModel):
    update_issue: Optional["UpdateIssueUpdateIssue"]


class UpdateIssueUpdateIssue(BaseModel):
    issue: Optional["UpdateIssueUpdateIssueIssue"]
    error: Optional["UpdateIssueUpdateIssueError"]


UpdateIssueUpdateIssueIssue = IssueFields
UpdateIssueUpdateIssueError = MutationErrorFields
UpdateIssue.model_rebuild()
UpdateIssueUpdateIssue.model_rebuild()
