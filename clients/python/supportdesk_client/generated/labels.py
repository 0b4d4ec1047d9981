from typing import Optional

from .base_model import BaseModel
from .fragments import LabelFields, PageInfoFields


class Labels(BaseModel):
    labels: Optional["LabelsLabels"]


class LabelsLabels(BaseModel):
    total_count: int
    page_info: "LabelsLabelsPageInfo"
    edges: list["LabelsLabelsEdges"]


LabelsLabelsPageInfo = PageInfoFields


class LabelsLabelsEdges(BaseModel):
    cursor: str
    node: "LabelsLabelsEdgesNode"


LabelsLabelsEdgesNode = LabelFields
Labels.model_rebuild()
LabelsLabels.model_rebuild()
LabelsLabelsEdges.model_rebuild()
