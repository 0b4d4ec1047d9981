from typing import Optional

from .base_model import BaseModel
from .fragments import LabelFields, MutationErrorFields


class CreateLabel(BaseModel):
    create_label: Optional["CreateLabelCreateLabel"]


class CreateLabelCreateLabel(BaseModel):
    label: Optional["CreateLabelCreateLabelLabel"]
    error: Optional["CreateLabelCreateLabelError"]


CreateLabelCreateLabelLabel = LabelFields
CreateLabelCreateLabelError = MutationErrorFields
CreateLabel.model_rebuild()
CreateLabelCreateLabel.model_rebuild()
