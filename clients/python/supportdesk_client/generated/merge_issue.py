from typing import Optional

from .base_model import BaseModel
from .fragments import IssueDetails, MutationErrorFields


class MergeIssue(BaseModel):
    merge_issue: Optional["MergeIssueMergeIssue"]


class MergeIssueMergeIssue(BaseModel):
    issue: Optional["MergeIssueMergeIssueIssue"]
    source: Optional["MergeIssueMergeIssueSource"]
    error: Optional["MergeIssueMergeIssueError"]


MergeIssueMergeIssueIssue = IssueDetails
MergeIssueMergeIssueSource = IssueDetails
MergeIssueMergeIssueError = MutationErrorFields
MergeIssue.model_rebuild()
MergeIssueMergeIssue.model_rebuild()
