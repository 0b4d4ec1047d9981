from typing import Optional

from .base_model import BaseModel
from .fragments import LabelFields, MutationErrorFields


class DeleteLabel(BaseModel):
    delete_label: Optional["DeleteLabelDeleteLabel"]


class DeleteLabelDeleteLabel(BaseModel):
    label: Optional["DeleteLabelDeleteLabelLabel"]
    error: Optional["DeleteLabelDeleteLabelError"]


DeleteLabelDeleteLabelLabel = LabelFields
DeleteLabelDeleteLabelError = MutationErrorFields
DeleteLabel.model_rebuild()
DeleteLabelDeleteLabel.model_rebuild()
