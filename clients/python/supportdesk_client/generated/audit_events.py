from typing import Optional

from .base_model import BaseModel
from .fragments import AuditEventFields, PageInfoFields


class AuditEvents(BaseModel):
    audit_events: Optional["AuditEventsAuditEvents"]


class AuditEventsAuditEvents(BaseModel):
    total_count: int
    page_info: "AuditEventsAuditEventsPageInfo"
    edges: list["AuditEventsAuditEventsEdges"]


AuditEventsAuditEventsPageInfo = PageInfoFields


class AuditEventsAuditEventsEdges(BaseModel):
    cursor: str
    node: "AuditEventsAuditEventsEdgesNode"


AuditEventsAuditEventsEdgesNode = AuditEventFields
AuditEvents.model_rebuild()
AuditEventsAuditEvents.model_rebuild()
AuditEventsAuditEventsEdges.model_rebuild()
