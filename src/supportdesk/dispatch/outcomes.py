"""Writing down what an attempt came to, on the delivery and on its endpoint.

Each outcome is one transaction. The delivery's row is changed only while this dispatcher
still holds its lease: if the lease ran out (a stalled process) and another dispatcher took
the delivery over, the late outcome is dropped rather than written over the newer one.

The endpoint's health follows (CONTRACT §11): a success clears its failure streak; 410 Gone
disables it at once; an endpoint that has had no success for 5 days while its deliveries
keep failing is disabled as `failing`. Disabling is done as the system, with an audit event
and a `webhook_endpoint.updated` event, like an admin's change.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func, literal, or_, update
from sqlalchemy.ext.asyncio import AsyncConnection

from supportdesk.db import Database
from supportdesk.db.tables import webhook_deliveries, webhook_endpoints
from supportdesk.dispatch.queue import Due
from supportdesk.dispatch.schedule import next_wait
from supportdesk.dispatch.sender import Reply
from supportdesk.domain import audit
from supportdesk.domain.audit import SYSTEM_ACTOR
from supportdesk.domain.clock import now
from supportdesk.domain.events import record_events, snapshots
from supportdesk.domain.webhooks.endpoints import locked_endpoint
from supportdesk.domain.webhooks.models import (
    ENDPOINT_COLUMNS,
    FAILING,
    GONE,
    endpoint_of,
)

FAILING_FOR = timedelta(days=5)
# A success is written on the endpoint at most this often: every delivery to a busy endpoint
# would otherwise queue on its row lock, for a date only the 5-day rule reads.
SUCCESS_PRECISION = timedelta(minutes=1)
ENDPOINT_DISABLED = "endpoint disabled"
EVENT_NOT_KEPT = "the event is no longer kept"


def _moment(value: datetime) -> Any:
    return literal(value, webhook_endpoints.c.failing_since.type)


async def _finish(connection: AsyncConnection, due: Due, values: dict[str, Any]) -> bool:
    """Write the delivery's new state while our lease holds; False when it no longer does."""
    result = await connection.execute(
        update(webhook_deliveries)
        .where(
            webhook_deliveries.c.workspace_id == due.workspace_id,
            webhook_deliveries.c.id == due.delivery_id,
            webhook_deliveries.c.lease_until == due.lease_until,
        )
        .values(lease_until=None, **values)
    )
    return bool(result.rowcount)


async def record_outcome(
    db: Database,
    due: Due,
    reply: Reply,
    started: datetime,
    schedule: Sequence[float],
    rng: random.Random | None = None,
) -> str:
    """Record the attempt that began at `started`; returns the delivery's status
    (`succeeded`, `failed`, or `pending` when it is tried again)."""
    attempts = due.attempts + 1
    finished = now()
    wait = None
    if not reply.succeeded and reply.status != 410:
        wait = next_wait(attempts, schedule, reply.status, reply.retry_after, finished, rng)
    status = "succeeded" if reply.succeeded else "pending" if wait is not None else "failed"
    values = {
        "status": status,
        "attempts": attempts,
        # A finished delivery keeps its last due time; the API shows it as no next attempt.
        "next_attempt_at": finished + timedelta(seconds=wait) if wait is not None else finished,
        "last_attempt_at": started,
        "last_response_status": reply.status,
        "last_error": reply.error,
        "duration_ms": reply.duration_ms,
    }
    async with db.transaction() as connection:
        if not await _finish(connection, due, values):
            return status
        if reply.succeeded:
            await _healthy(connection, due, finished)
        elif reply.status == 410:
            await disable_endpoint(connection, due.workspace_id, due.endpoint_id, GONE, finished)
        else:
            await _failing(connection, due, finished)
    return status


async def give_up(db: Database, due: Due, reason: str) -> None:
    """Fail a delivery without an attempt: its endpoint is disabled, or its event gone."""
    async with db.transaction() as connection:
        await _finish(
            connection, due, {"status": "failed", "last_error": reason, "next_attempt_at": now()}
        )


async def _healthy(connection: AsyncConnection, due: Due, at: datetime) -> None:
    await connection.execute(
        update(webhook_endpoints)
        .where(
            webhook_endpoints.c.workspace_id == due.workspace_id,
            webhook_endpoints.c.id == due.endpoint_id,
            or_(
                webhook_endpoints.c.failing_since.is_not(None),
                webhook_endpoints.c.last_success_at.is_(None),
                webhook_endpoints.c.last_success_at < _moment(at - SUCCESS_PRECISION),
            ),
        )
        .values(last_success_at=at, failing_since=None)
    )


async def _failing(connection: AsyncConnection, due: Due, at: datetime) -> None:
    row = (
        await connection.execute(
            update(webhook_endpoints)
            .where(
                webhook_endpoints.c.workspace_id == due.workspace_id,
                webhook_endpoints.c.id == due.endpoint_id,
            )
            .values(failing_since=func.coalesce(webhook_endpoints.c.failing_since, _moment(at)))
            .returning(
                webhook_endpoints.c.enabled,
                webhook_endpoints.c.last_success_at,
                webhook_endpoints.c.created_at,
            )
        )
    ).first()
    if row is None:
        return
    enabled, last_success_at, created_at = row
    # Success is never before creation, so the later of the two is the one that is set.
    if enabled and at - (last_success_at or created_at) >= FAILING_FOR:
        await disable_endpoint(connection, due.workspace_id, due.endpoint_id, FAILING, at)


async def disable_endpoint(
    connection: AsyncConnection, workspace_id: str, endpoint_id: str, reason: str, at: datetime
) -> None:
    """Switch the endpoint off as the system, saying why; nothing when it already is off.
    Done before its event is recorded, so that event is not queued for the endpoint itself."""
    before = await locked_endpoint(connection, workspace_id, endpoint_id)
    if not before.enabled:
        return
    row = (
        await connection.execute(
            update(webhook_endpoints)
            .where(
                webhook_endpoints.c.workspace_id == workspace_id,
                webhook_endpoints.c.id == endpoint_id,
            )
            .values(enabled=False, disabled_reason=reason, updated_at=at)
            .returning(*ENDPOINT_COLUMNS)
        )
    ).one()
    after = endpoint_of(row)
    snapshot = snapshots.webhook_endpoint(after)
    changes = snapshots.changes(snapshots.webhook_endpoint(before), snapshot)
    await audit.record(
        connection,
        workspace_id,
        SYSTEM_ACTOR,
        "webhook_endpoint.updated",
        ("WebhookEndpoint", endpoint_id),
        {"url": after.url, "changes": changes},
    )
    await record_events(
        connection,
        workspace_id,
        SYSTEM_ACTOR,
        [("webhook_endpoint.updated", {"webhookEndpoint": snapshot, "changes": changes})],
    )
