from typing import Optional

from .base_model import BaseModel
from .fragments import IssueDetails


class Issue(BaseModel):
    issue: Optional["IssueIssue"]


IssueIssue = IssueDetails
Issue.model_rebuild()
