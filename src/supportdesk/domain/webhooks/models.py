"""Webhook endpoints and deliveries, as the rest of the service sees them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from supportdesk.db.tables import webhook_deliveries, webhook_endpoints

MAX_ENDPOINTS = 25
SECRET_PREFIX_LENGTH = 12
MANUAL = "manual"  # disabledReason of an endpoint an admin switched off
GONE = "gone"  # it answered 410
FAILING = "failing"  # no success for 5 days while deliveries failed


MASK = "***"


def shown_url(url: str) -> str:
    """An endpoint's URL as the records that others read show it (events, which travel to
    every receiver of `webhook_endpoint.*`, and audit entries, read with `audit:read`):
    its query and fragment, where receivers put their tokens, each replaced by `***`."""
    parts = urlsplit(url)
    return urlunsplit(
        parts._replace(query=MASK if parts.query else "", fragment=MASK if parts.fragment else "")
    )


@dataclass(frozen=True, slots=True)
class WebhookEndpoint:
    id: str
    workspace_id: str
    url: str
    description: str
    event_types: tuple[str, ...]
    enabled: bool
    disabled_reason: str | None
    secret_prefix: str
    created_at: datetime
    updated_at: datetime

    @property
    def status(self) -> str:
        return "active" if self.enabled else "disabled"


ENDPOINT_COLUMNS = (
    webhook_endpoints.c.id,
    webhook_endpoints.c.workspace_id,
    webhook_endpoints.c.url,
    webhook_endpoints.c.description,
    webhook_endpoints.c.event_types,
    webhook_endpoints.c.enabled,
    webhook_endpoints.c.disabled_reason,
    webhook_endpoints.c.secret_prefix,
    webhook_endpoints.c.created_at,
    webhook_endpoints.c.updated_at,
)


def endpoint_of(row: Any) -> WebhookEndpoint:
    values = list(row)
    values[4] = tuple(values[4].split()) if values[4] else ()
    return WebhookEndpoint(*values)


@dataclass(frozen=True, slots=True)
class WebhookDelivery:
    id: str
    workspace_id: str
    endpoint_id: str
    event_id: str
    event_type: str
    payload: dict[str, Any] | None
    status: str
    attempts: int
    next_attempt_at: datetime | None
    last_attempt_at: datetime | None
    last_response_status: int | None
    last_error: str | None
    duration_ms: int | None
    created_at: datetime


DELIVERY_COLUMNS = (
    webhook_deliveries.c.id,
    webhook_deliveries.c.workspace_id,
    webhook_deliveries.c.endpoint_id,
    webhook_deliveries.c.event_id,
    webhook_deliveries.c.event_type,
    webhook_deliveries.c.payload,
    webhook_deliveries.c.status,
    webhook_deliveries.c.attempts,
    webhook_deliveries.c.next_attempt_at,
    webhook_deliveries.c.last_attempt_at,
    webhook_deliveries.c.last_response_status,
    webhook_deliveries.c.last_error,
    webhook_deliveries.c.duration_ms,
    webhook_deliveries.c.created_at,
)


def delivery_of(row: Any) -> WebhookDelivery:
    delivery = WebhookDelivery(*row)
    if delivery.status != "pending":
        # A finished delivery has no next attempt (the column keeps its last due time).
        return _without_next(delivery)
    return delivery


def _without_next(delivery: WebhookDelivery) -> WebhookDelivery:
    values = [getattr(delivery, name) for name in WebhookDelivery.__dataclass_fields__]
    values[8] = None
    return WebhookDelivery(*values)
