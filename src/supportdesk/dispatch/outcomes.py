"""Writing down what an attempt came to, on the delivery and on its endpoint.

A batch of outcomes is one transaction. A delivery's row is changed only while this dispatcher
still holds its lease: if the lease ran out (a stalled process) and another dispatcher took
the delivery over, the late outcome is dropped rather than written over the newer one.

The endpoint's health follows (docs/webhooks.md): a success clears its failure streak; 410 Gone
disables it at once; an endpoint that has had no success for 5 days while its deliveries
keep failing is disabled as `failing`. Disabling is done as the system, with an audit event
and a `webhook_endpoint.updated` event, like an admin's change.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Integer, String, bindparam, func, literal, null, or_, update
from sqlalchemy.dialects.postgresql import ARRAY

from supportdesk.db import Database
from supportdesk.db.connection import Connection
from supportdesk.db.tables import webhook_deliveries, webhook_endpoints
from supportdesk.db.types import UTCDateTime
from supportdesk.dispatch.client import Reply
from supportdesk.dispatch.queue import Due
from supportdesk.dispatch.schedule import next_wait
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
    shown_url,
)

FAILING_FOR = timedelta(days=5)
# A success is written on the endpoint at most this often: every delivery to a busy endpoint
# would otherwise queue on its row lock, for a date only the 5-day rule reads.
SUCCESS_PRECISION = timedelta(minutes=1)
ENDPOINT_DISABLED = "endpoint disabled"
EVENT_NOT_KEPT = "the event is no longer kept"


def _moment(value: datetime) -> Any:
    return literal(value, webhook_endpoints.c.failing_since.type)


@dataclass(frozen=True, slots=True)
class Attempt:
    """An attempt that began at `started` and came to `reply`."""

    due: Due
    reply: Reply
    started: datetime


# A delivery's new state, written only while our lease holds. Bound names differ from the
# columns' (SQLAlchemy keeps those for the SET clause); run once per batch, as executemany.
_FINISH = (
    update(webhook_deliveries)
    .where(
        webhook_deliveries.c.workspace_id == bindparam("at_workspace"),
        webhook_deliveries.c.id == bindparam("at_delivery"),
        webhook_deliveries.c.lease_until == bindparam("held_until"),
    )
    .values(
        lease_until=None,
        status=bindparam("new_status"),
        attempts=bindparam("new_attempts"),
        next_attempt_at=bindparam("new_next_attempt_at"),
        last_attempt_at=bindparam("new_last_attempt_at"),
        last_response_status=bindparam("new_response_status"),
        last_error=bindparam("new_error"),
        duration_ms=bindparam("new_duration_ms"),
    )
)


# PostgreSQL: the same for a whole batch in one statement, each delivery's values read from
# arrays side by side (one array per `_FINISH` parameter, in `_FINISH_FIELDS`' order): one
# execution instead of one per delivery.
_FINISH_FIELDS = (
    ("at_workspace", String),
    ("at_delivery", String),
    ("held_until", UTCDateTime),
    ("new_status", String),
    ("new_attempts", Integer),
    ("new_next_attempt_at", UTCDateTime),
    ("new_last_attempt_at", UTCDateTime),
    ("new_response_status", Integer),
    ("new_error", String),
    ("new_duration_ms", Integer),
)
_OUTCOME = (
    func.unnest(*(bindparam(name, type_=ARRAY(kind())) for name, kind in _FINISH_FIELDS))
    .table_valued(*(name for name, _ in _FINISH_FIELDS))
    .render_derived("outcome")
)
_FINISH_ALL = (
    update(webhook_deliveries)
    .where(
        webhook_deliveries.c.workspace_id == _OUTCOME.c.at_workspace,
        webhook_deliveries.c.id == _OUTCOME.c.at_delivery,
        webhook_deliveries.c.lease_until == _OUTCOME.c.held_until,
    )
    .values(
        lease_until=null(),
        status=_OUTCOME.c.new_status,
        attempts=_OUTCOME.c.new_attempts,
        next_attempt_at=_OUTCOME.c.new_next_attempt_at,
        last_attempt_at=_OUTCOME.c.new_last_attempt_at,
        last_response_status=_OUTCOME.c.new_response_status,
        last_error=_OUTCOME.c.new_error,
        duration_ms=_OUTCOME.c.new_duration_ms,
    )
)


async def _finish_all(connection: Connection, rows: Sequence[dict[str, Any]]) -> None:
    """`_FINISH` for each of `rows`: in one statement on PostgreSQL, one call on SQLite."""
    if connection.dialect.name != "postgresql":
        await connection.run_many(_FINISH, rows)
        return
    await connection.rows(
        _FINISH_ALL, {name: [row[name] for row in rows] for name, _ in _FINISH_FIELDS}
    )


@dataclass(frozen=True, slots=True)
class Finished:
    """An attempt and what it came to: the delivery's new `status` and the values of its
    row (`_FINISH`'s parameters)."""

    attempt: Attempt
    status: str
    values: dict[str, Any]
    at: datetime


def finish(
    attempt: Attempt, finished: datetime, schedule: Sequence[float], rng: Any = None
) -> Finished:
    """Decide what an attempt that ended at `finished` comes to; nothing is written."""
    due, reply = attempt.due, attempt.reply
    attempts = due.attempts + 1
    wait = None
    if not reply.succeeded and reply.status != 410:
        wait = next_wait(attempts, schedule, reply.status, reply.retry_after, finished, rng)
    status = "succeeded" if reply.succeeded else "pending" if wait is not None else "failed"
    values = {
        "at_workspace": due.workspace_id,
        "at_delivery": due.delivery_id,
        "held_until": due.lease_until,
        "new_status": status,
        "new_attempts": attempts,
        # A finished delivery keeps its last due time; the API shows it as no next attempt.
        "new_next_attempt_at": finished + timedelta(seconds=wait) if wait is not None else finished,
        "new_last_attempt_at": attempt.started,
        "new_response_status": reply.status,
        "new_error": reply.error,
        "new_duration_ms": reply.duration_ms,
    }
    return Finished(attempt, status, values, finished)


# Endpoints whose success this process wrote lately, kept by the caller of write_outcomes.
HealthyWritten = dict[tuple[str, str], datetime]
HEALTHY_KEPT = 4096


async def write_outcomes(
    db: Database, batch: Sequence[Finished], written: HealthyWritten | None = None
) -> None:
    """Write decided outcomes in one transaction (`write_outcomes_in`)."""
    async with db.transaction() as connection:
        healthy = await write_outcomes_in(connection, batch, written)
    note_written(written, healthy)


async def write_outcomes_in(
    connection: Connection, batch: Sequence[Finished], written: HealthyWritten | None = None
) -> HealthyWritten:
    """Write decided outcomes in the transaction of `connection`; what it marked healthy,
    for `note_written` once committed.

    Successes, nearly all of a busy dispatcher's work, take one statement for the batch
    and one per endpoint, left out for an endpoint whose success `written` says
    was written less than SUCCESS_PRECISION ago. A failure is written alone, so its
    endpoint's health follows only when this dispatcher still held the lease."""
    succeeded = [one.values for one in batch if one.attempt.reply.succeeded]
    healthy: HealthyWritten = {}
    for one in batch:
        if one.attempt.reply.succeeded:
            key = (one.attempt.due.workspace_id, one.attempt.due.endpoint_id)
            healthy[key] = max(one.at, healthy.get(key, one.at))
    if written is not None:
        healthy = {
            key: at
            for key, at in healthy.items()
            if key not in written or at - written[key] >= SUCCESS_PRECISION
        }
    failures: dict[tuple[str, str], list[Finished]] = {}
    for one in batch:
        if not one.attempt.reply.succeeded:
            due = one.attempt.due
            failures.setdefault((due.workspace_id, due.endpoint_id), []).append(one)
    if succeeded:
        await _finish_all(connection, succeeded)
    # Endpoint rows in one order, whichever dispatcher writes: two batches that both
    # touch two endpoints never wait on each other crosswise (a deadlock).
    for key in sorted(healthy.keys() | failures.keys()):
        if key in healthy:
            await _healthy(connection, *key, healthy[key])
        for one in failures.get(key, ()):
            await _failed(connection, one.attempt, one.values, one.at)
    return healthy


def note_written(written: HealthyWritten | None, healthy: HealthyWritten) -> None:
    """Remember the successes a committed batch wrote on its endpoints."""
    if written is not None:
        if len(written) + len(healthy) > HEALTHY_KEPT:
            written.clear()
        written.update(healthy)


async def _failed(
    connection: Connection, attempt: Attempt, values: dict[str, Any], at: datetime
) -> None:
    if not (await connection.execute(_FINISH, values)).rowcount:
        return  # the lease ran out and another dispatcher took the delivery over
    due = attempt.due
    if attempt.reply.status == 410:
        await disable_endpoint(connection, due.workspace_id, due.endpoint_id, GONE, at)
    else:
        await _failing(connection, due, at)


async def give_up(db: Database, due: Due, reason: str) -> None:
    """Fail a delivery without an attempt: its endpoint is disabled, or its event gone."""
    async with db.transaction() as connection:
        await connection.execute(
            update(webhook_deliveries)
            .where(
                webhook_deliveries.c.workspace_id == due.workspace_id,
                webhook_deliveries.c.id == due.delivery_id,
                webhook_deliveries.c.lease_until == due.lease_until,
            )
            .values(lease_until=None, status="failed", last_error=reason, next_attempt_at=now())
        )


# A success clears the endpoint's failure streak; written at most once a SUCCESS_PRECISION.
_MARK_HEALTHY = (
    update(webhook_endpoints)
    .where(
        webhook_endpoints.c.workspace_id == bindparam("in_workspace"),
        webhook_endpoints.c.id == bindparam("the_endpoint"),
        or_(
            webhook_endpoints.c.failing_since.is_not(None),
            webhook_endpoints.c.last_success_at.is_(None),
            webhook_endpoints.c.last_success_at
            < bindparam("written_before", type_=webhook_endpoints.c.last_success_at.type),
        ),
    )
    .values(
        last_success_at=bindparam("success_at", type_=webhook_endpoints.c.last_success_at.type),
        failing_since=None,
    )
)


async def _healthy(
    connection: Connection, workspace_id: str, endpoint_id: str, at: datetime
) -> None:
    await connection.rows(
        _MARK_HEALTHY,
        {
            "in_workspace": workspace_id,
            "the_endpoint": endpoint_id,
            "written_before": at - SUCCESS_PRECISION,
            "success_at": at,
        },
    )


async def _failing(connection: Connection, due: Due, at: datetime) -> None:
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
    connection: Connection, workspace_id: str, endpoint_id: str, reason: str, at: datetime
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
    changes = snapshots.webhook_endpoint_changes(before, after)
    await audit.record(
        connection,
        workspace_id,
        SYSTEM_ACTOR,
        "webhook_endpoint.updated",
        ("WebhookEndpoint", endpoint_id),
        {"url": shown_url(after.url), "changes": changes},
    )
    await record_events(
        connection,
        workspace_id,
        SYSTEM_ACTOR,
        [("webhook_endpoint.updated", {"webhookEndpoint": snapshot, "changes": changes})],
    )
