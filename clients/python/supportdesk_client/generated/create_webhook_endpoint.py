from typing import Optional

from .base_model import BaseModel
from .fragments import MutationErrorFields, WebhookEndpointFields


class CreateWebhookEndpoint(BaseModel):
    create_webhook_endpoint: Optional["CreateWebhookEndpointCreateWebhookEndpoint"]


class CreateWebhookEndpointCreateWebhookEndpoint(BaseModel):
    webhook_endpoint: Optional[
        "CreateWebhookEndpointCreateWebhookEndpointWebhookEndpoint"
    ]
    secret: Optional[str]
    error: Optional["CreateWebhookEndpointCreateWebhookEndpointError"]


CreateWebhookEndpointCreateWebhookEndpointWebhookEndpoint = WebhookEndpointFields
CreateWebhookEndpointCreateWebhookEndpointError = MutationErrorFields
CreateWebhookEndpoint.model_rebuild()
CreateWebhookEndpointCreateWebhookEndpoint.model_rebuild()
