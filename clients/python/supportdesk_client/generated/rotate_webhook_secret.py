from typing import Optional

from .base_model import BaseModel
from .fragments import MutationErrorFields, WebhookEndpointFields


class RotateWebhookSecret(BaseModel):
    rotate_webhook_secret: Optional["RotateWebhookSecretRotateWebhookSecret"]


class RotateWebhookSecretRotateWebhookSecret(BaseModel):
    webhook_endpoint: Optional["RotateWebhookSecretRotateWebhookSecretWebhookEndpoint"]
    secret: Optional[str]
    error: Optional["RotateWebhookSecretRotateWebhookSecretError"]


RotateWebhookSecretRotateWebhookSecretWebhookEndpoint = WebhookEndpointFields
RotateWebhookSecretRotateWebhookSecretError = MutationErrorFields
RotateWebhookSecret.model_rebuild()
RotateWebhookSecretRotateWebhookSecret.model_rebuild()
