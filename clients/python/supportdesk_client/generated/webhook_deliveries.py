from typing import Annotated, Literal, Optional, Union

from pydantic import Field

from .base_model import BaseModel
from .fragments import PageInfoFields, WebhookDeliveryFields


class WebhookDeliveries(BaseModel):
    node: Optional[
        Annotated[
            Union["WebhookDeliveriesNodeNode", "WebhookDeliveriesNodeWebhookEndpoint"],
            Field(discriminator="typename__"),
        ]
    ]


class WebhookDeliveriesNodeNode(BaseModel):
    typename__: Literal[
        "Account",
        "ApiKey",
        "Article",
        "AuditEvent",
        "Contact",
        "Issue",
        "Label",
        "MachineUser",
        "Mailbox",
        "Member",
        "Message",
        "Node",
        "WebhookDelivery",
    ] = Field(alias="__typename")


class WebhookDeliveriesNodeWebhookEndpoint(BaseModel):
    typename__: Literal["WebhookEndpoint"] = Field(alias="__typename")
    deliveries: Optional["WebhookDeliveriesNodeWebhookEndpointDeliveries"]


class WebhookDeliveriesNodeWebhookEndpointDeliveries(BaseModel):
    total_count: int
    page_info: "WebhookDeliveriesNodeWebhookEndpointDeliveriesPageInfo"
    edges: list["WebhookDeliveriesNodeWebhookEndpointDeliveriesEdges"]


WebhookDeliveriesNodeWebhookEndpointDeliveriesPageInfo = PageInfoFields


class WebhookDeliveriesNodeWebhookEndpointDeliveriesEdges(BaseModel):
    cursor: str
    node: "WebhookDeliveriesNodeWebhookEndpointDeliveriesEdgesNode"


WebhookDeliveriesNodeWebhookEndpointDeliveriesEdgesNode = WebhookDeliveryFields
WebhookDeliveries.model_rebuild()
WebhookDeliveriesNodeWebhookEndpoint.model_rebuild()
WebhookDeliveriesNodeWebhookEndpointDeliveries.model_rebuild()
WebhookDeliveriesNodeWebhookEndpointDeliveriesEdges.model_rebuild()
