from typing import Optional

from .base_model import BaseModel
from .fragments import MutationErrorFields, WebhookDeliveryFields


class RedeliverWebhookEvent(BaseModel):
    redeliver_webhook_event: Optional["RedeliverWebhookEventRedeliverWebhookEvent"]


class RedeliverWebhookEventRedeliverWebhookEvent(BaseModel):
    delivery: Optional["RedeliverWebhookEventRedeliverWebhookEventDelivery"]
    error: Optional["RedeliverWebhookEventRedeliverWebhookEventError"]


RedeliverWebhookEventRedeliverWebhookEventDelivery = WebhookDeliveryFields
RedeliverWebhookEventRedeliverWebhookEventError = MutationErrorFields
RedeliverWebhookEvent.model_rebuild()
RedeliverWebhookEventRedeliverWebhookEvent.model_rebuild()
