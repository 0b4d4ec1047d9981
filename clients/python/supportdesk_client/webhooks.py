"""Verifying a webhook delivery (docs/webhooks.md): Standard Webhooks signatures."""

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
    During a secret rotation either secret verifies.

    Raises InvalidWebhook for whatever the request holds that is not an event signed with
    this secret (headers missing or malformed, a wrong signature, a body that is not an
    event), and ValueError when `secret` itself is empty or not base64: that is the
    receiver's configuration to mend, not the request's fault."""
    webhook = _webhook(secret)
    try:
        payload = webhook.verify(body, dict(headers))
        return WebhookEvent.model_validate(payload)
    # ValueError: what standardwebhooks raises for a signature header without `v1,`, a
    # signature or body it cannot decode, and a signed body that is not JSON.
    except (WebhookVerificationError, ValidationError, ValueError) as error:
        raise InvalidWebhook(str(error)) from error


def _webhook(secret: str) -> Webhook:
    try:
        return Webhook(secret)
    except Exception:  # empty, or not base64 (standardwebhooks' own exception types vary)
        raise ValueError("secret must be the endpoint's whsec_… secret") from None
