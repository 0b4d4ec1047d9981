from typing import Optional

from .base_model import BaseModel
from .fragments import IssueDetails, MutationErrorFields


class AssignIssue(BaseModel):
    assign_issue: Optional["AssignIssueAssignIssue"]


class AssignIssueAssignIssue(BaseModel):
    issue: Optional["AssignIssueAssignIssueIssue"]
    error: Optional["AssignIssueAssignIssueError"]


AssignIssueAssignIssueIssue = IssueDetails
AssignIssueAssignIssueError = MutationErrorFields
AssignIssue.model_rebuild()
AssignIssueAssignIssue.model_rebuild()
