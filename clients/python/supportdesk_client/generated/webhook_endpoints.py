from typing import Optional

from .base_model import BaseModel
from .fragments import PageInfoFields, WebhookEndpointFields


class WebhookEndpoints(BaseModel):
    webhook_endpoints: Optional["WebhookEndpointsWebhookEndpoints"]


class WebhookEndpointsWebhookEndpoints(BaseModel):
    total_count: int
    page_info: "WebhookEndpointsWebhookEndpointsPageInfo"
    edges: list["WebhookEndpointsWebhookEndpointsEdges"]


WebhookEndpointsWebhookEndpointsPageInfo = PageInfoFields


class WebhookEndpointsWebhookEndpointsEdges(BaseModel):
    cursor: str
    node: "WebhookEndpointsWebhookEndpointsEdgesNode"


WebhookEndpointsWebhookEndpointsEdgesNode = WebhookEndpointFields
WebhookEndpoints.model_rebuild()
WebhookEndpointsWebhookEndpoints.model_rebuild()
WebhookEndpointsWebhookEndpointsEdges.model_rebuild()
