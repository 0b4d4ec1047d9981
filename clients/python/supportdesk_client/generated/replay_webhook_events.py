from typing import Optional

from .base_model import BaseModel
from .fragments import MutationErrorFields


class ReplayWebhookEvents(BaseModel):
    replay_webhook_events: Optional["ReplayWebhookEventsReplayWebhookEvents"]


class ReplayWebhookEventsReplayWebhookEvents(BaseModel):
    count: Optional[int]
    error: Optional["ReplayWebhookEventsReplayWebhookEventsError"]


ReplayWebhookEventsReplayWebhookEventsError = MutationErrorFields
ReplayWebhookEvents.model_rebuild()
ReplayWebhookEventsReplayWebhookEvents.model_rebuild()
