from typing import Optional

from .base_model import BaseModel
from .fragments import MutationErrorFields, WebhookEndpointFields


class DeleteWebhookEndpoint(BaseModel):
    delete_webhook_endpoint: Optional["DeleteWebhookEndpointDeleteWebhookEndpoint"]


class DeleteWebhookEndpointDeleteWebhookEndpoint(BaseModel):
    webhook_endpoint: Optional[
        "DeleteWebhookEndpointDeleteWebhookEndpointWebhookEndpoint"
    ]
    error: Optional["DeleteWebhookEndpointDeleteWebhookEndpointError"]


DeleteWebhookEndpointDeleteWebhookEndpointWebhookEndpoint = WebhookEndpointFields
DeleteWebhookEndpointDeleteWebhookEndpointError = MutationErrorFields
DeleteWebhookEndpoint.model_rebuild()
DeleteWebhookEndpointDeleteWebhookEndpoint.model_rebuild()
