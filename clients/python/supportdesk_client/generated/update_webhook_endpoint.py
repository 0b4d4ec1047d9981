from typing import Optional

from .base_model import BaseModel
from .fragments import MutationErrorFields, WebhookEndpointFields


class UpdateWebhookEndpoint(BaseModel):
    update_webhook_endpoint: Optional["UpdateWebhookEndpointUpdateWebhookEndpoint"]


class UpdateWebhookEndpointUpdateWebhookEndpoint(BaseModel):
    webhook_endpoint: Optional[
        "UpdateWebhookEndpointUpdateWebhookEndpointWebhookEndpoint"
    ]
    error: Optional["UpdateWebhookEndpointUpdateWebhookEndpointError"]


UpdateWebhookEndpointUpdateWebhookEndpointWebhookEndpoint = WebhookEndpointFields
UpdateWebhookEndpointUpdateWebhookEndpointError = MutationErrorFields
UpdateWebhookEndpoint.model_rebuild()
UpdateWebhookEndpointUpdateWebhookEndpoint.model_rebuild()
