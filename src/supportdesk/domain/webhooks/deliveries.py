"""Deliveries as the API shows them, and the ones an admin asks for: a test event,
redelivery of one event, replay of a range of sequences."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, func, insert, select

from supportdesk import API_VERSION
from supportdesk.db import Database
from supportdesk.db.connection import Connection
from supportdesk.db.tables import events, webhook_deliveries
from supportdesk.domain.audit import Actor
from supportdesk.domain.clock import now, rfc3339
from supportdesk.domain.errors import DomainError, ErrorCode, FieldCode, FieldError, not_found
from supportdesk.domain.events import TEST_EVENT_TYPE, actor_of, subscribes
from supportdesk.domain.ids import is_id_of, new_id
from supportdesk.domain.pagination import Page, PageRequest
from supportdesk.domain.per_parent import ChildCounts, ChildPages, in_workspace
from supportdesk.domain.webhooks.endpoints import (
    Readable,
    check_readable,
    every_type_if_empty,
    locked_endpoint,
)
from supportdesk.domain.webhooks.models import DELIVERY_COLUMNS, WebhookDelivery, delivery_of

MAX_REPLAY = 1_000
# Deliveries an endpoint may have waiting when a replay adds more: a key's rate limit alone
# would let it queue hundreds of thousands a minute towards one receiver.
MAX_WAITING_FOR_REPLAY = 5 * MAX_REPLAY
STATUSES = ("pending", "succeeded", "failed")


def _new_delivery(
    workspace_id: str,
    endpoint_id: str,
    event_id: str,
    event_type: str,
    moment: datetime,
    payload: dict[str, Any] | None = None,
) -> dict[str, Any]:
    return {
        "workspace_id": workspace_id,
        "id": new_id("WebhookDelivery", moment),
        "endpoint_id": endpoint_id,
        "event_id": event_id,
        "event_type": event_type,
        "payload": payload,
        "status": "pending",
        "attempts": 0,
        "next_attempt_at": moment,
        "created_at": moment,
    }


async def _queue(connection: Connection, rows: list[dict[str, Any]]) -> None:
    if rows:
        await connection.execute(insert(webhook_deliveries), rows)


async def _delivery(connection: Connection, workspace_id: str, delivery_id: str) -> WebhookDelivery:
    query = select(*DELIVERY_COLUMNS).where(
        webhook_deliveries.c.workspace_id == workspace_id,
        webhook_deliveries.c.id == delivery_id,
    )
    return delivery_of((await connection.execute(query)).one())


async def send_test(
    db: Database, actor: Actor, workspace_id: str, endpoint_id: str
) -> WebhookDelivery:
    """A `webhook.test` event for this endpoint alone; it is not in the event log."""
    moment = now()
    event_id = new_id("Event", moment)
    body = {
        "id": event_id,
        "type": TEST_EVENT_TYPE,
        "sequence": None,
        "createdAt": rfc3339(moment),
        "apiVersion": API_VERSION,
        "workspaceId": workspace_id,
        "actor": actor_of(actor),
        "data": {"message": "A test event from supportdesk."},
    }
    async with db.transaction() as connection:
        await locked_endpoint(connection, workspace_id, endpoint_id)
        row = _new_delivery(workspace_id, endpoint_id, event_id, TEST_EVENT_TYPE, moment, body)
        await _queue(connection, [row])
        return await _delivery(connection, workspace_id, row["id"])


async def redeliver(
    db: Database, workspace_id: str, endpoint_id: str, event_id: str, readable: Readable = None
) -> WebhookDelivery:
    """Send an event of the log to the endpoint again, with the same event id, whatever
    types the endpoint takes; the caller must be able to read it (`check_readable`)."""
    if not is_id_of(event_id, "Event"):
        raise not_found("Event")
    moment = now()
    async with db.transaction() as connection:
        await locked_endpoint(connection, workspace_id, endpoint_id)
        kind = await connection.scalar(
            select(events.c.type).where(
                events.c.workspace_id == workspace_id, events.c.id == event_id
            )
        )
        if kind is None:
            raise not_found("Event")
        check_readable(readable, [str(kind)])
        row = _new_delivery(workspace_id, endpoint_id, event_id, str(kind), moment)
        await _queue(connection, [row])
        return await _delivery(connection, workspace_id, row["id"])


async def replay(
    db: Database,
    workspace_id: str,
    endpoint_id: str,
    from_sequence: int,
    to_sequence: int,
    readable: Readable = None,
) -> int:
    """Send the events of sequences `from_sequence`..`to_sequence` (both included, at most
    1,000) that the endpoint subscribes to again, with their own ids; returns how many were
    queued. The caller must be able to read every type the endpoint takes."""
    problems = []
    if from_sequence < 1:
        problems.append(FieldError("fromSequence", FieldCode.INVALID))
    if to_sequence < from_sequence or to_sequence - from_sequence + 1 > MAX_REPLAY:
        problems.append(FieldError("toSequence", FieldCode.INVALID))
    if problems:
        raise DomainError(
            ErrorCode.VALIDATION_FAILED,
            f"Replay 1 to {MAX_REPLAY} events: fromSequence ≥ 1 and fromSequence ≤ toSequence"
            f" < fromSequence + {MAX_REPLAY}.",
            problems,
        )
    moment = now()
    async with db.transaction() as connection:
        endpoint = await locked_endpoint(connection, workspace_id, endpoint_id)
        check_readable(readable, every_type_if_empty(endpoint.event_types))
        await _refuse_when_backed_up(connection, workspace_id, endpoint_id)
        found = await connection.execute(
            select(events.c.id, events.c.type)
            .where(
                events.c.workspace_id == workspace_id,
                events.c.sequence >= from_sequence,
                events.c.sequence <= to_sequence,
            )
            .order_by(events.c.sequence)
        )
        wanted = " ".join(endpoint.event_types)
        rows = [
            _new_delivery(workspace_id, endpoint_id, event_id, kind, moment)
            for event_id, kind in found
            if subscribes(wanted, kind)
        ]
        await _queue(connection, rows)
    return len(rows)


async def _refuse_when_backed_up(
    connection: Connection, workspace_id: str, endpoint_id: str
) -> None:
    waiting = await connection.scalar(
        select(func.count()).select_from(
            select(webhook_deliveries.c.id)
            .where(
                webhook_deliveries.c.workspace_id == workspace_id,
                webhook_deliveries.c.endpoint_id == endpoint_id,
                webhook_deliveries.c.status == "pending",
            )
            .limit(MAX_WAITING_FOR_REPLAY)
            .subquery()
        )
    )
    if waiting is not None and waiting >= MAX_WAITING_FOR_REPLAY:
        raise DomainError(
            ErrorCode.LIMIT_REACHED,
            f"This endpoint has {MAX_WAITING_FOR_REPLAY:,} or more deliveries waiting;"
            " replay more once they are sent.",
        )


def _deliveries(with_status: bool) -> list[ColumnElement[bool]]:
    return in_workspace(webhook_deliveries, webhook_deliveries.c.status if with_status else None)


# Each built once for all deliveries, and once for those of one status.
_OF_ENDPOINTS = {
    with_status: ChildPages(
        select(*DELIVERY_COLUMNS).where(*_deliveries(with_status)),
        webhook_deliveries.c.endpoint_id,
        webhook_deliveries.c.id,
        delivery_of,
        newest_first=True,
    )
    for with_status in (False, True)
}
_COUNT_OF_ENDPOINTS = {
    with_status: ChildCounts(
        webhook_deliveries,
        webhook_deliveries.c.endpoint_id,
        *_deliveries(with_status),
    )
    for with_status in (False, True)
}


def _status_parameters(workspace_id: str, status: str | None) -> dict[str, str]:
    found = {"workspace_id": workspace_id}
    if status is not None:
        found["status"] = status
    return found


async def delivery_pages_of_endpoints(
    db: Database,
    workspace_id: str,
    endpoint_ids: Sequence[str],
    page: PageRequest,
    status: str | None = None,
) -> dict[str, Page[WebhookDelivery]]:
    """The same page of each endpoint's deliveries, newest first (what an admin looks at is
    the latest), in one statement."""
    pages = _OF_ENDPOINTS[status is not None]
    return await pages.fetch(db, endpoint_ids, page, **_status_parameters(workspace_id, status))


async def count_deliveries_of_endpoints(
    db: Database,
    workspace_id: str,
    endpoint_ids: Sequence[str],
    status: str | None = None,
) -> dict[str, int]:
    counts = _COUNT_OF_ENDPOINTS[status is not None]
    return await counts.fetch(db, endpoint_ids, **_status_parameters(workspace_id, status))


async def get_deliveries(
    db: Database, workspace_id: str, ids: Sequence[str]
) -> dict[str, WebhookDelivery]:
    query = select(*DELIVERY_COLUMNS).where(
        webhook_deliveries.c.workspace_id == workspace_id, webhook_deliveries.c.id.in_(ids)
    )
    async with db.read() as connection:
        return {row[0]: delivery_of(row) for row in await connection.execute(query)}
