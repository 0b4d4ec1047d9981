from typing import Optional

from .base_model import BaseModel
from .fragments import IssueDetails, MutationErrorFields


class AddLabels(BaseModel):
    add_labels: Optional["AddLabelsAddLabels"]


class AddLabelsAddLabels(BaseModel):
    issue: Optional["AddLabelsAddLabelsIssue"]
    error: Optional["AddLabelsAddLabelsError"]


AddLabelsAddLabelsIssue = IssueDetails
AddLabelsAddLabelsError = MutationErrorFields
AddLabels.model_rebuild()
AddLabelsAddLabels.model_rebuild()
