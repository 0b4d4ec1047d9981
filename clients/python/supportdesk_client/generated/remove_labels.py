from typing import Optional

from .base_model import BaseModel
from .fragments import IssueDetails, MutationErrorFields


class RemoveLabels(BaseModel):
    remove_labels: Optional["RemoveLabelsRemoveLabels"]


class RemoveLabelsRemoveLabels(BaseModel):
    issue: Optional["RemoveLabelsRemoveLabelsIssue"]
    error: Optional["RemoveLabelsRemoveLabelsError"]


RemoveLabelsRemoveLabelsIssue = IssueDetails
RemoveLabelsRemoveLabelsError = MutationErrorFields
RemoveLabels.model_rebuild()
RemoveLabelsRemoveLabels.model_rebuild()
