"""The writers of webhook endpoints: create, update, rotate the secret, delete. Each is one
transaction that records its audit and `webhook_endpoint.*` events.

A secret is made here, returned once and stored sealed by the `SecretBox` the caller
passes (None: the deployment has no key to seal with, NOT_CONFIGURED)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import delete, func, insert, select

from supportdesk.auth.secret_box import SecretBox, new_webhook_secret
from supportdesk.db import Database
from supportdesk.db.connection import Connection
from supportdesk.db.locking import locked_row
from supportdesk.db.tables import webhook_deliveries, webhook_endpoints, workspaces
from supportdesk.domain import audit
from supportdesk.domain.audit import Actor
from supportdesk.domain.changes import KEEP, Keep
from supportdesk.domain.clock import now
from supportdesk.domain.errors import DomainError, ErrorCode, FieldCode, FieldError, not_found
from supportdesk.domain.events import (
    EVENT_TYPES,
    TEST_EVENT_TYPE,
    read_scope,
    record_events,
    snapshots,
    unknown_types,
)
from supportdesk.domain.ids import is_id_of, new_id
from supportdesk.domain.rows import updated_row
from supportdesk.domain.validation import Validator
from supportdesk.domain.webhooks.address_policy import UnsafeUrl, check_url
from supportdesk.domain.webhooks.models import (
    ENDPOINT_COLUMNS,
    MANUAL,
    MAX_ENDPOINTS,
    SECRET_PREFIX_LENGTH,
    WebhookEndpoint,
    endpoint_of,
    shown_url,
)

MAX_DESCRIPTION = 500
MAX_URL = 2048
DEFAULT_KEEP_PREVIOUS_SECONDS = 86_400
MAX_KEEP_PREVIOUS_SECONDS = 604_800

NOT_CONFIGURED = DomainError(
    ErrorCode.NOT_CONFIGURED,
    "Webhook secrets are sealed under the server key, and none is configured: set"
    " SUPPORTDESK_SECRET_KEY (the same value in every process; `supportdesk secret-key`"
    " prints a new one).",
)


@dataclass(frozen=True, slots=True)
class EndpointPolicy:
    """What the deployment allows: private addresses (SUPPORTDESK_WEBHOOK_ALLOW_PRIVATE)."""

    allow_private: bool = False


@dataclass(frozen=True, slots=True)
class EndpointWithSecret:
    endpoint: WebhookEndpoint
    secret: str


# The event types a caller may read (a key's, by its scopes), or None for every type (an
# org admin on the settings page, the command line).
Readable = frozenset[str] | None


def check_readable(readable: Readable, event_types: Iterable[str]) -> None:
    """An endpoint hands its events to whoever holds its URL: a caller may point one at a
    URL, widen what it takes, or send it events again only within the event types it may
    read itself (as a key may only grant scopes it holds)."""
    if readable is None:
        return
    needed = sorted({read_scope(kind) for kind in event_types if kind not in readable})
    if needed:
        raise DomainError(
            ErrorCode.SCOPE_ESCALATION,
            "An endpoint may only receive the events this key may read itself; these event"
            f" types need {', '.join(needed)}.",
            [FieldError("eventTypes", FieldCode.INVALID)],
        )


def every_type_if_empty(event_types: Iterable[str]) -> tuple[str, ...]:
    """An endpoint's types as a list: none chosen means every type."""
    return tuple(event_types) or EVENT_TYPES


async def _checked_url(check: Validator, url: str | None, policy: EndpointPolicy) -> str | None:
    cleaned = check.text("url", url, MAX_URL, required=True)
    if cleaned is None or check.errors:
        return cleaned
    try:
        await check_url(cleaned, policy.allow_private)
    except UnsafeUrl as unsafe:
        raise DomainError(
            ErrorCode.VALIDATION_FAILED,
            f"This URL may not receive webhooks: {unsafe.reason}.",
            [FieldError("url", FieldCode.UNSAFE_URL)],
        ) from None
    return cleaned


def _event_types(check: Validator, event_types: list[str] | None) -> str:
    """Space-separated, sorted, de-duplicated; empty means every type."""
    chosen = sorted({kind.strip() for kind in event_types or []})
    unknown = unknown_types(chosen)
    if unknown:
        check.fail("eventTypes", FieldCode.INVALID, f"Unknown event types: {', '.join(unknown)}.")
    return " ".join(chosen)


async def create_endpoint(
    db: Database,
    actor: Actor,
    workspace_id: str,
    box: SecretBox | None,
    policy: EndpointPolicy,
    *,
    url: str | None,
    description: str | None = None,
    event_types: list[str] | None = None,
    enabled: bool | None = None,
    readable: Readable = None,
) -> EndpointWithSecret:
    """A new endpoint with a new secret (returned here, once). At most 25 per workspace;
    it takes only event types the caller may read (`check_readable`)."""
    check = Validator()
    clean_description = check.text("description", description, MAX_DESCRIPTION, required=False)
    types = _event_types(check, event_types)
    clean_url = await _checked_url(check, url, policy)
    check.check()
    check_readable(readable, every_type_if_empty(types.split()))
    assert clean_url is not None
    if box is None:
        raise NOT_CONFIGURED
    secret = new_webhook_secret()
    moment = now()
    is_enabled = True if enabled is None else enabled
    endpoint = WebhookEndpoint(
        new_id("WebhookEndpoint", moment),
        workspace_id,
        clean_url,
        clean_description or "",
        tuple(types.split()),
        is_enabled,
        None if is_enabled else MANUAL,
        secret[:SECRET_PREFIX_LENGTH],
        moment,
        moment,
    )
    async with db.transaction() as connection:
        await _lock_workspace_endpoints(connection, workspace_id)
        count = await connection.scalar(
            select(func.count())
            .select_from(webhook_endpoints)
            .where(webhook_endpoints.c.workspace_id == workspace_id)
        )
        if int(count or 0) >= MAX_ENDPOINTS:
            raise DomainError(
                ErrorCode.LIMIT_REACHED,
                f"A workspace has at most {MAX_ENDPOINTS} webhook endpoints; delete one first.",
            )
        await connection.execute(
            insert(webhook_endpoints).values(
                workspace_id=workspace_id,
                id=endpoint.id,
                url=endpoint.url,
                description=endpoint.description,
                event_types=types,
                enabled=endpoint.enabled,
                disabled_reason=endpoint.disabled_reason,
                secret_sealed=box.seal(secret),
                secret_prefix=endpoint.secret_prefix,
                created_at=moment,
                updated_at=moment,
            )
        )
        await _record(connection, actor, "webhook_endpoint.created", endpoint)
    return EndpointWithSecret(endpoint, secret)


async def _lock_workspace_endpoints(connection: Connection, workspace_id: str) -> None:
    """Concurrent creators take turns on the workspace row, so the limit holds (on SQLite,
    where FOR UPDATE is written as nothing, the writer already holds the database). The
    process's turn first, which the events will take: held before any row, it waits for
    no one who waits for this row. FOR NO KEY UPDATE: other writers' inserts, whose foreign
    keys check the workspace row, do not wait on it."""
    await connection.take_turn(workspace_id)
    await connection.execute(
        select(workspaces.c.id)
        .where(workspaces.c.id == workspace_id)
        .with_for_update(key_share=True)
    )


async def _record(
    connection: Connection,
    actor: Actor,
    kind: str,
    endpoint: WebhookEndpoint,
    changes: dict[str, Any] | None = None,
) -> None:
    snapshot = snapshots.webhook_endpoint(endpoint)
    await audit.record(
        connection,
        endpoint.workspace_id,
        actor,
        kind,
        ("WebhookEndpoint", endpoint.id),
        {"url": shown_url(endpoint.url), **({"changes": changes} if changes else {})},
    )
    data: dict[str, object] = {"webhookEndpoint": snapshot}
    if changes is not None:
        data["changes"] = changes
    await record_events(connection, endpoint.workspace_id, actor, [(kind, data)])


async def locked_endpoint(
    connection: Connection, workspace_id: str, endpoint_id: str
) -> WebhookEndpoint:
    if not is_id_of(endpoint_id, "WebhookEndpoint"):
        raise not_found("Webhook endpoint")
    # Before the endpoint's row, as for a new one: the other writers' events queue its
    # deliveries, which wait on this row.
    await connection.take_turn(workspace_id)
    row = await locked_row(
        connection, webhook_endpoints, ENDPOINT_COLUMNS, workspace_id, endpoint_id
    )
    if row is None:
        raise not_found("Webhook endpoint")
    return endpoint_of(row)


async def update_endpoint(
    db: Database,
    actor: Actor,
    workspace_id: str,
    endpoint_id: str,
    policy: EndpointPolicy,
    *,
    url: str | None = None,
    description: str | Keep | None = KEEP,
    event_types: list[str] | None = None,
    enabled: bool | None = None,
    readable: Readable = None,
) -> WebhookEndpoint:
    """Change what is given. Enabling an endpoint clears why it was disabled (and its
    failure streak); disabling it by hand says `manual`. A new URL or new event types need
    every type the endpoint then takes to be readable by the caller (`check_readable`)."""
    check = Validator()
    clean_description = (
        check.text("description", description, MAX_DESCRIPTION, required=False)
        if not isinstance(description, Keep)
        else None
    )
    types = _event_types(check, event_types) if event_types is not None else None
    clean_url = await _checked_url(check, url, policy) if url is not None else None
    check.check()
    async with db.transaction() as connection:
        before = await locked_endpoint(connection, workspace_id, endpoint_id)
        values: dict[str, object] = {}
        if clean_url is not None and clean_url != before.url:
            values["url"] = clean_url
        if not isinstance(description, Keep) and (clean_description or "") != before.description:
            values["description"] = clean_description or ""
        if types is not None and tuple(types.split()) != before.event_types:
            values["event_types"] = types
        after_types = every_type_if_empty(
            types.split() if "event_types" in values and types is not None else before.event_types
        )
        if "url" in values:
            # A new address receives what the endpoint takes and what already waits for it.
            waiting = await _pending_types(connection, workspace_id, endpoint_id)
            check_readable(readable, (*after_types, *waiting))
        elif "event_types" in values:  # narrowing needs nothing more
            widened = set(after_types) - set(every_type_if_empty(before.event_types))
            check_readable(readable, widened)
        if enabled is not None and enabled != before.enabled:
            values["enabled"] = enabled
            values["disabled_reason"] = None if enabled else MANUAL
            values["failing_since"] = None
        if not values:
            return before
        values["updated_at"] = now()
        row = await updated_row(
            connection, webhook_endpoints, ENDPOINT_COLUMNS, workspace_id, endpoint_id, **values
        )
        after = endpoint_of(row)
        changes = snapshots.webhook_endpoint_changes(before, after)
        await _record(connection, actor, "webhook_endpoint.updated", after, changes)
    return after


async def _pending_types(connection: Connection, workspace_id: str, endpoint_id: str) -> list[str]:
    """The event types of the endpoint's deliveries still to be sent (tests carry none)."""
    found = await connection.execute(
        select(webhook_deliveries.c.event_type)
        .distinct()
        .where(
            webhook_deliveries.c.workspace_id == workspace_id,
            webhook_deliveries.c.endpoint_id == endpoint_id,
            webhook_deliveries.c.status == "pending",
            webhook_deliveries.c.event_type != TEST_EVENT_TYPE,
        )
    )
    return [str(kind) for (kind,) in found]


async def rotate_secret(
    db: Database,
    actor: Actor,
    workspace_id: str,
    endpoint_id: str,
    box: SecretBox | None,
    keep_previous_for_seconds: int | None = None,
) -> EndpointWithSecret:
    """A new secret, returned once. For `keep_previous_for_seconds` (default a day, at most
    a week, 0 for none) deliveries carry a second signature made with the previous one."""
    keep = (
        DEFAULT_KEEP_PREVIOUS_SECONDS
        if keep_previous_for_seconds is None
        else keep_previous_for_seconds
    )
    if not 0 <= keep <= MAX_KEEP_PREVIOUS_SECONDS:
        raise DomainError(
            ErrorCode.VALIDATION_FAILED,
            f"keepPreviousForSeconds must be between 0 and {MAX_KEEP_PREVIOUS_SECONDS}.",
            [FieldError("keepPreviousForSeconds", FieldCode.INVALID)],
        )
    if box is None:
        raise NOT_CONFIGURED
    secret = new_webhook_secret()
    moment = now()
    async with db.transaction() as connection:
        before = await locked_endpoint(connection, workspace_id, endpoint_id)
        current = await connection.scalar(
            select(webhook_endpoints.c.secret_sealed).where(
                webhook_endpoints.c.workspace_id == workspace_id,
                webhook_endpoints.c.id == endpoint_id,
            )
        )
        row = await updated_row(
            connection,
            webhook_endpoints,
            ENDPOINT_COLUMNS,
            workspace_id,
            endpoint_id,
            secret_sealed=box.seal(secret),
            secret_prefix=secret[:SECRET_PREFIX_LENGTH],
            previous_secret_sealed=current if keep else None,
            previous_secret_expires_at=moment + timedelta(seconds=keep) if keep else None,
            updated_at=moment,
        )
        rotated = endpoint_of(row)
        await _record(
            connection,
            actor,
            "webhook_endpoint.updated",
            rotated,
            {"secretPrefix": {"from": before.secret_prefix, "to": rotated.secret_prefix}},
        )
    return EndpointWithSecret(rotated, secret)


async def delete_endpoint(
    db: Database, actor: Actor, workspace_id: str, endpoint_id: str
) -> WebhookEndpoint:
    """Remove the endpoint and its deliveries; pending ones are not sent."""
    async with db.transaction() as connection:
        endpoint = await locked_endpoint(connection, workspace_id, endpoint_id)
        await connection.execute(
            delete(webhook_endpoints).where(
                webhook_endpoints.c.workspace_id == workspace_id,
                webhook_endpoints.c.id == endpoint_id,
            )
        )
        await _record(connection, actor, "webhook_endpoint.deleted", endpoint)
    return endpoint
