"""The event log: written in the transaction of the change it records (an outbox).

Each event takes the workspace's next `sequence` from a counter on the workspace row, moved
in the same transaction: a rollback gives the numbers back, and concurrent writers take
turns on the row lock, so the log is gap-free and commits in sequence order. In the same
statement batch every enabled endpoint that subscribes to the type gets a pending
delivery, so an answered mutation always has both its events and its deliveries."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Integer,
    String,
    bindparam,
    column,
    insert,
    select,
    text,
    update,
)
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.compiler import SQLCompiler

from supportdesk import API_VERSION
from supportdesk.db.connection import Connection
from supportdesk.db.tables import events, webhook_deliveries, webhook_endpoints, workspaces
from supportdesk.domain.audit import Actor
from supportdesk.domain.clock import now, rfc3339
from supportdesk.domain.ids import new_id

# The actor kinds of the event shape; the command line and other service work are "system".
_ACTOR_TYPES = {"machine_user": "machine_user", "org_admin": "org_admin", "member": "member"}


@dataclass(frozen=True, slots=True)
class Event:
    id: str
    workspace_id: str
    sequence: int
    type: str
    api_version: str
    actor: dict[str, Any]
    data: dict[str, Any]
    created_at: datetime

    def body(self) -> dict[str, Any]:
        """The JSON of the event, the same in `events` and in a webhook body."""
        return {
            "id": self.id,
            "type": self.type,
            "sequence": self.sequence,
            "createdAt": rfc3339(self.created_at),
            "apiVersion": self.api_version,
            "workspaceId": self.workspace_id,
            "actor": self.actor,
            "data": self.data,
        }


# The columns of an event row, in the order of Event's fields (Event(*row)).
EVENT_COLUMNS = (
    events.c.id,
    events.c.workspace_id,
    events.c.sequence,
    events.c.type,
    events.c.api_version,
    events.c.actor,
    events.c.data,
    events.c.created_at,
)


def actor_of(actor: Actor) -> dict[str, Any]:
    return {
        "type": _ACTOR_TYPES.get(actor.type, "system"),
        "id": actor.id,
        "name": actor.name or actor.label,
    }


# What an UPDATE of the workspace row sets to take `event_count` sequences, and returns:
# the last one, the webhook generation of the locked row and of the statement's snapshot,
# and the enabled endpoints that snapshot holds. Most workspaces have none; the others get
# their endpoints with the lock, not from another statement while they hold it
# (`EventCounter`).
MOVE_EVENT_COUNTER = {
    "last_event_sequence": workspaces.c.last_event_sequence + bindparam("event_count")
}
# The same for a change of a webhook endpoint, which moves the generation too.
_MOVE_FOR_ENDPOINT = {
    **MOVE_EVENT_COUNTER,
    "webhook_generation": workspaces.c.webhook_generation + 1,
}
_ENDPOINT_EVENTS = "webhook_endpoint."


def _returned(sql: str) -> Any:
    # Sub-selects of a RETURNING clause written out: SQLAlchemy writes their columns
    # without their tables there, and each condition should name its table.
    return text(sql).columns(column("value", Integer)).scalar_subquery()


class _Subscribers(ColumnElement[str]):
    """The workspace's enabled endpoints, each `<id>:<its event types>`, joined by `;`
    (NULL: none), written out for a RETURNING clause like `_returned`. Ids and event
    types hold neither separator."""

    inherit_cache = True
    type = String()


_SUBSCRIBERS_LISTED = (
    "(SELECT {aggregate}(webhook_endpoints.id || ':' || webhook_endpoints.event_types, ';') "
    "FROM webhook_endpoints WHERE webhook_endpoints.workspace_id = {workspace} "
    "AND webhook_endpoints.enabled)"
)


@compiles(_Subscribers, "postgresql")
def _subscribers_pg(element: _Subscribers, compiler: SQLCompiler, **kw: Any) -> str:
    workspace = compiler.process(bindparam("workspace_id"), **kw)
    return _SUBSCRIBERS_LISTED.format(aggregate="string_agg", workspace=workspace)


@compiles(_Subscribers)
def _subscribers_sqlite(element: _Subscribers, compiler: SQLCompiler, **kw: Any) -> str:
    workspace = compiler.process(bindparam("workspace_id"), **kw)
    return _SUBSCRIBERS_LISTED.format(aggregate="group_concat", workspace=workspace)


EVENT_COUNTER = (
    workspaces.c.last_event_sequence,
    workspaces.c.webhook_generation,
    _returned(
        "SELECT seen.webhook_generation FROM workspaces AS seen WHERE seen.id = :workspace_id"
    ),
    _Subscribers(),
)


def _move_sequence(values: dict[str, Any]) -> Any:
    return (
        update(workspaces)
        .where(workspaces.c.id == bindparam("workspace_id"))
        .values(values)
        .returning(*EVENT_COUNTER)
    )


_MOVE_SEQUENCE = _move_sequence(MOVE_EVENT_COUNTER)
_MOVE_SEQUENCE_FOR_ENDPOINT = _move_sequence(_MOVE_FOR_ENDPOINT)
_INSERT_EVENT = insert(events)
_SUBSCRIBERS = select(webhook_endpoints.c.id, webhook_endpoints.c.event_types).where(
    webhook_endpoints.c.workspace_id == bindparam("workspace_id"),
    webhook_endpoints.c.enabled.is_(True),
)


@dataclass(frozen=True, slots=True)
class EventCounter:
    """The workspace's event counter after a writer moved it by `count` (the columns of
    `EVENT_COUNTER`, in the statement that also takes the workspace row's lock).

    `endpoints` (id, event types) is what the statement's snapshot held. That snapshot may
    be older than the lock: a writer that changed an endpoint may have committed while
    this one waited. Every endpoint change moves the workspace's webhook generation in its
    own transaction, so the endpoints are the latest when the generation of the snapshot
    (`seen`) is the locked row's (`generation`). PostgreSQL's snapshot may differ; SQLite,
    whose one writer holds the database, reads the row as it is."""

    last: int
    generation: int
    seen: int
    endpoints: tuple[tuple[str, str], ...]
    count: int

    @classmethod
    def of(cls, columns: Sequence[Any], count: int) -> EventCounter:
        """From the values of `EVENT_COUNTER`'s columns."""
        last, generation, seen, listed = columns
        endpoints = tuple(_endpoint(item) for item in listed.split(";")) if listed else ()
        return cls(int(last), int(generation), int(seen), endpoints, count)

    @property
    def first(self) -> int:
        return self.last - self.count + 1

    @property
    def current(self) -> bool:
        """Whether `endpoints` are the workspace's endpoints as of the lock: no endpoint
        changed between the snapshot and the lock."""
        return self.seen == self.generation


def _endpoint(listed: str) -> tuple[str, str]:
    endpoint_id, _, event_types = listed.partition(":")
    return endpoint_id, event_types


_INSERT_DELIVERY = insert(webhook_deliveries)


async def record_events(
    connection: Connection,
    workspace_id: str,
    actor: Actor,
    changes: Sequence[tuple[str, dict[str, Any]]],
    counter: EventCounter | None = None,
) -> list[Event]:
    """Append `(type, data)` events in order, with the workspace's next sequences, and queue
    a delivery of each to every endpoint that wants it. Call it last in the transaction:
    from here to the commit the workspace's counter is held. A writer that updates the
    workspace row anyway (a ticket number) moves the counter there (`MOVE_EVENT_COUNTER`,
    returning `EVENT_COUNTER`) and hands it over as `counter`, moved by `len(changes)`."""
    if not changes:
        return []
    moment = now()
    if counter is None:
        await connection.take_turn(workspace_id)
        parameters = {"workspace_id": workspace_id, "event_count": len(changes)}
        endpoint_changed = any(kind.startswith(_ENDPOINT_EVENTS) for kind, _ in changes)
        moving = _MOVE_SEQUENCE_FOR_ENDPOINT if endpoint_changed else _MOVE_SEQUENCE
        [row] = await connection.rows(moving, parameters)
        counter = EventCounter.of(row, len(changes))
    if counter.count != len(changes):
        raise ValueError("the counter was moved for another number of events")
    first = counter.first
    who = actor_of(actor)
    recorded = [
        Event(
            new_id("Event", moment),
            workspace_id,
            first + offset,
            kind,
            API_VERSION,
            who,
            data,
            moment,
        )
        for offset, (kind, data) in enumerate(changes)
    ]
    # Sent with the transaction's next statement or its commit (`Connection.write`).
    await connection.write_many(
        _INSERT_EVENT,
        [
            {
                "workspace_id": workspace_id,
                "sequence": event.sequence,
                "id": event.id,
                "type": event.type,
                "api_version": event.api_version,
                "actor": event.actor,
                "data": event.data,
                "created_at": moment,
            }
            for event in recorded
        ],
    )
    endpoints = counter.endpoints
    if not counter.current:  # an endpoint changed since the snapshot (maybe by this one)
        endpoints = tuple(await connection.rows(_SUBSCRIBERS, {"workspace_id": workspace_id}))
    if endpoints:
        await _queue_deliveries(connection, workspace_id, recorded, endpoints, moment)
    return recorded


def subscribes(event_types: str, event_type: str) -> bool:
    """Whether an endpoint's space-separated `event_types` (empty: all) takes this type."""
    return not event_types or event_type in event_types.split()


async def _queue_deliveries(
    connection: Connection,
    workspace_id: str,
    recorded: list[Event],
    endpoints: Sequence[tuple[str, str]],
    moment: datetime,
) -> None:
    # Due at once: a dispatcher finds them at its next look at the queue.
    rows = [
        {
            "workspace_id": workspace_id,
            "id": new_id("WebhookDelivery", moment),
            "endpoint_id": endpoint_id,
            "event_id": event.id,
            "event_type": event.type,
            "status": "pending",
            "attempts": 0,
            "next_attempt_at": moment,
            "created_at": moment,
        }
        for event in recorded
        for endpoint_id, event_types in endpoints
        if subscribes(event_types, event.type)
    ]
    if rows:
        await connection.write_many(_INSERT_DELIVERY, rows)
