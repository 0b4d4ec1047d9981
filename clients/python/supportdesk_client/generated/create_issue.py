from typing import Optional

from .base_model import BaseModel
from .fragments import IssueFields, MutationErrorFields


class CreateIssue(BaseModel):
    create_issue: Optional["CreateIssueCreateIssue"]


class CreateIssueCreateIssue(BaseModel):
    issue: Optional["CreateIssueCreateIssueIssue"]
    error: Optional["CreateIssueCreateIssueError"]


CreateIssueCreateIssueIssue = IssueFields
CreateIssueCreateIssueError = MutationErrorFields
CreateIssue.model_rebuild()
CreateIssueCreateIssue.model_rebuild()
