"""Verifying a webhook delivery (CONTRACT section 11): Standard Webhooks signatures."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from standardwebhooks import Webhook
from standardwebhooks.webhooks import WebhookVerificationError

from .errors import SupportdeskError


class InvalidWebhook(SupportdeskError):
    """The delivery was not signed with this secret, is more than five minutes old or
    early, or is not an event."""

    def __init__(self, message: str) -> None:
        super().__init__("INVALID_WEBHOOK", message)


class EventActor(BaseModel):
    type: str
    id: str | None = None
    name: str | None = None


class WebhookEvent(BaseModel):
    """The body of a delivery: the same JSON as the `events` query gives."""

    model_config = ConfigDict(populate_by_name=True, frozen=True)

    id: str
    type: str
    # None for `webhook.test`, which is not in the event log.
    sequence: int | None
    created_at: datetime = Field(alias="createdAt")
    api_version: str = Field(alias="apiVersion")
    workspace_id: str = Field(alias="workspaceId")
    actor: EventActor
    data: dict[str, Any]


def verify_webhook(secret: str, body: bytes | str, headers: Mapping[str, str]) -> WebhookEvent:
    """The event a delivery carries, once its signature is checked against `secret` (the
    endpoint's `whsec_…`). Pass the body exactly as received, before any JSON parsing.
    During a secret rotation either secret verifies. Raises InvalidWebhook."""
    try:
        payload = Webhook(secret).verify(body, dict(headers))
        return WebhookEvent.model_validate(payload)
    except (WebhookVerificationError, ValidationError) as error:
        raise InvalidWebhook(str(error)) from error
