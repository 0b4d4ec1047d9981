from typing import Optional

from .base_model import BaseModel
from .fragments import EventFields, PageInfoFields


class Events(BaseModel):
    events: Optional["EventsEvents"]


class EventsEvents(BaseModel):
    total_count: int
    page_info: "EventsEventsPageInfo"
    edges: list["EventsEventsEdges"]


EventsEventsPageInfo = PageInfoFields


class EventsEventsEdges(BaseModel):
    cursor: str
    node: "EventsEventsEdgesNode"


EventsEventsEdgesNode = EventFields
Events.model_rebuild()
EventsEvents.model_rebuild()
EventsEventsEdges.model_rebuild()
