from typing import Optional

from .base_model import BaseModel
from .fragments import IssueDetails, PageInfoFields


class Issues(BaseModel):
    issues: Optional["IssuesIssues"]


class IssuesIssues(BaseModel):
    total_count: int
    page_info: "IssuesIssuesPageInfo"
    edges: list["IssuesIssuesEdges"]


IssuesIssuesPageInfo = PageInfoFields


class IssuesIssuesEdges(BaseModel):
    cursor: str
    node: "IssuesIssuesEdgesNode"


IssuesIssuesEdgesNode = IssueDetails
Issues.model_rebuild()
IssuesIssues.model_rebuild()
IssuesIssuesEdges.model_rebuild()
