from typing import Optional

from .base_model import BaseModel
from .fragments import LabelFields, MutationErrorFields


class UpdateLabel(BaseModel):
    update_label: Optional["UpdateLabelUpdateLabel"]


class UpdateLabelUpdateLabel(BaseModel):
    label: Optional["UpdateLabelUpdateLabelLabel"]
    error: Optional["UpdateLabelUpdateLabelError"]


UpdateLabelUpdateLabelLabel = LabelFields
UpdateLabelUpdateLabelError = MutationErrorFields
UpdateLabel.model_rebuild()
UpdateLabelUpdateLabel.model_rebuild()
