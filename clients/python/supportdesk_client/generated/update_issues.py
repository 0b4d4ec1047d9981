from typing import Optional

from .base_model import BaseModel
from .fragments import IssueFields, MutationErrorFields


class UpdateIssues(BaseModel):
    update_issues: Optional["UpdateIssuesUpdateIssues"]


class UpdateIssuesUpdateIssues(BaseModel):
    issues: Optional[list["UpdateIssuesUpdateIssuesIssues"]]
    error: Optional["UpdateIssuesUpdateIssuesError"]


UpdateIssuesUpdateIssuesIssues = IssueFields
UpdateIssuesUpdateIssuesError = MutationErrorFields
UpdateIssues.model_rebuild()
UpdateIssuesUpdateIssues.model_rebuild()
