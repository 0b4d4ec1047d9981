from typing import Optional

from .base_model import BaseModel
from .fragments import MutationErrorFields, WebhookDeliveryFields


class SendTestWebhook(BaseModel):
    send_test_webhook: Optional["SendTestWebhookSendTestWebhook"]


class SendTestWebhookSendTestWebhook(BaseModel):
    delivery: Optional["SendTestWebhookSendTestWebhookDelivery"]
    error: Optional["SendTestWebhookSendTestWebhookError"]


SendTestWebhookSendTestWebhookDelivery = WebhookDeliveryFields
SendTestWebhookSendTestWebhookError = MutationErrorFields
SendTestWebhook.model_rebuild()
SendTestWebhookSendTestWebhook.model_rebuild()
