from typing import Optional

from .base_model import BaseModel
from .fragments import IssueDetails


class IssueByNumber(BaseModel):
    issue_by_number: Optional["IssueByNumberIssueByNumber"]


IssueByNumberIssueByNumber = IssueDetails
IssueByNumber.model_rebuild()
