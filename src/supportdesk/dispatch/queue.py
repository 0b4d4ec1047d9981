"""The delivery queue: taking due deliveries with a lease, and what each attempt needs.

A dispatcher first reads which due deliveries it could take (`candidates`): each endpoint's
oldest few, every endpoint's first before any endpoint's second, leaving out the endpoints
and workspaces whose share it already holds (dispatcher.py). A workspace with a thousand
due deliveries so offers as many at a time as one with a single delivery: neither a replay
nor a backlog of retries keeps another workspace's deliveries waiting behind it.

It then takes those it picked in one short transaction, by moving each delivery's
`next_attempt_at` to the end of a 60 s lease (and noting the lease in `lease_until`), if it
is still due. Until then no dispatcher sees it as due; if this one dies mid-attempt, the
delivery is simply due again when the lease runs out, and the queue's index stays one
column on pending rows. PostgreSQL: `FOR UPDATE SKIP LOCKED`, so dispatchers in several
processes take disjoint batches without waiting on each other. SQLite: one writer at a
time already serialises them.

The reads of the queue look across workspaces by design (one queue for the deployment);
the tenancy guard in the tests knows them by `WHERE webhook_deliveries.next_attempt_at <=`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import (
    and_,
    bindparam,
    func,
    literal_column,
    not_,
    or_,
    select,
    tuple_,
    update,
)

from supportdesk.db import Connection, Database, Read, in_ids
from supportdesk.db.tables import events, webhook_deliveries, webhook_endpoints
from supportdesk.domain.events import Event
from supportdesk.domain.events.log import EVENT_COLUMNS

LEASE = timedelta(seconds=60)


# The due-condition comes first in each WHERE: the tenancy guard recognises the queue by it.
# 'pending' is written into the statement, not bound: only then may either planner use the
# partial index ix_webhook_deliveries_due (WHERE status = 'pending'), whose condition it must
# see implied when the statement is prepared.
_IS_DUE = and_(
    webhook_deliveries.c.next_attempt_at <= bindparam("at"),
    webhook_deliveries.c.status == literal_column("'pending'"),
)
# Each due delivery's place in its endpoint's line (1: the oldest due), for the endpoints and
# workspaces that are not left out; the lines' first places first. The window runs over
# the due deliveries only (the partial index), less those left out.
_PLACED = (
    select(
        webhook_deliveries.c.workspace_id,
        webhook_deliveries.c.id,
        webhook_deliveries.c.endpoint_id,
        webhook_deliveries.c.next_attempt_at,
        func.row_number()
        .over(
            partition_by=(webhook_deliveries.c.workspace_id, webhook_deliveries.c.endpoint_id),
            order_by=webhook_deliveries.c.next_attempt_at,
        )
        .label("place"),
    )
    .where(
        _IS_DUE,
        not_(in_ids(webhook_deliveries.c.endpoint_id, "full_endpoints")),
        not_(in_ids(webhook_deliveries.c.workspace_id, "full_workspaces")),
    )
    .subquery("placed")
)
_CANDIDATES_READ = (
    select(_PLACED.c.workspace_id, _PLACED.c.id, _PLACED.c.endpoint_id)
    .where(_PLACED.c.place <= bindparam("per_endpoint"))
    .order_by(_PLACED.c.place, _PLACED.c.next_attempt_at)
    .limit(bindparam("how_many"))
)
_STILL_DUE = (
    select(webhook_deliveries.c.workspace_id, webhook_deliveries.c.id)
    .where(
        _IS_DUE,
        # The picked deliveries' workspaces, then the deliveries: ids are unique.
        and_(
            in_ids(webhook_deliveries.c.workspace_id, "workspaces"),
            in_ids(webhook_deliveries.c.id, "ids"),
        ),
    )
    .with_for_update(skip_locked=True)  # PostgreSQL only; SQLite renders nothing
    .correlate(None)  # its own scan of the table, not the UPDATE's row
)
_CLAIM = (
    update(webhook_deliveries)
    .where(tuple_(webhook_deliveries.c.workspace_id, webhook_deliveries.c.id).in_(_STILL_DUE))
    .values(lease_until=bindparam("lease_end"), next_attempt_at=bindparam("lease_end"))
    .returning(webhook_deliveries.c.workspace_id, webhook_deliveries.c.id)
)
# An endpoint parked until `until`: its due deliveries, and those `held` by this dispatcher
# and not sent, wait until then.
_PARK = (
    update(webhook_deliveries)
    .where(
        webhook_deliveries.c.workspace_id == bindparam("in_workspace"),
        webhook_deliveries.c.endpoint_id == bindparam("of_endpoint"),
        webhook_deliveries.c.status == literal_column("'pending'"),
        or_(
            webhook_deliveries.c.next_attempt_at <= bindparam("at"),
            webhook_deliveries.c.id.in_(bindparam("held", expanding=True)),
        ),
    )
    .values(next_attempt_at=bindparam("until"), lease_until=None)
)
# A delivery this dispatcher took and did not send: due again at once, while its lease holds.
_RELEASE = (
    update(webhook_deliveries)
    .where(
        webhook_deliveries.c.workspace_id == bindparam("in_workspace"),
        webhook_deliveries.c.id == bindparam("the_delivery"),
        webhook_deliveries.c.lease_until == bindparam("held_until"),
    )
    .values(next_attempt_at=bindparam("due_at"), lease_until=None)
)
# Where and how an attempt is sent: its endpoint's columns, in `_target`'s order.
_TARGET = (
    webhook_endpoints.c.url,
    webhook_endpoints.c.enabled,
    webhook_endpoints.c.secret_sealed,
    webhook_endpoints.c.previous_secret_sealed,
    webhook_endpoints.c.previous_secret_expires_at,
)
# Everything the batch's attempts need, in one read: each delivery with its endpoint and its
# event (none for a test delivery, whose body is its payload).
_LOAD = (
    select(
        webhook_deliveries.c.workspace_id,
        webhook_deliveries.c.id,
        webhook_deliveries.c.endpoint_id,
        webhook_deliveries.c.event_id,
        webhook_deliveries.c.attempts,
        webhook_deliveries.c.payload,
        *_TARGET,
        *EVENT_COLUMNS,
    )
    .select_from(
        webhook_deliveries.join(
            webhook_endpoints,
            and_(
                webhook_endpoints.c.workspace_id == webhook_deliveries.c.workspace_id,
                webhook_endpoints.c.id == webhook_deliveries.c.endpoint_id,
            ),
        ).outerjoin(
            events,
            and_(
                events.c.workspace_id == webhook_deliveries.c.workspace_id,
                events.c.id == webhook_deliveries.c.event_id,
            ),
        )
    )
    # The batch's workspaces, then its deliveries: ids are unique, so no pair is mixed up.
    .where(
        and_(
            in_ids(webhook_deliveries.c.workspace_id, "workspaces"),
            in_ids(webhook_deliveries.c.id, "ids"),
        )
    )
)

# PostgreSQL: the claim and the load as one statement, the claim's RETURNING joined with the
# endpoints and events (SQLite's UPDATE may not stand in a WITH).
_CLAIMED = _CLAIM.returning(
    webhook_deliveries.c.endpoint_id,
    webhook_deliveries.c.event_id,
    webhook_deliveries.c.attempts,
    webhook_deliveries.c.payload,
).cte("claimed")
_CLAIM_AND_LOAD = select(
    _CLAIMED.c.workspace_id,
    _CLAIMED.c.id,
    _CLAIMED.c.endpoint_id,
    _CLAIMED.c.event_id,
    _CLAIMED.c.attempts,
    _CLAIMED.c.payload,
    *_TARGET,
    *EVENT_COLUMNS,
).select_from(
    _CLAIMED.join(
        webhook_endpoints,
        and_(
            webhook_endpoints.c.workspace_id == _CLAIMED.c.workspace_id,
            webhook_endpoints.c.id == _CLAIMED.c.endpoint_id,
        ),
    ).outerjoin(
        events,
        and_(
            events.c.workspace_id == _CLAIMED.c.workspace_id,
            events.c.id == _CLAIMED.c.event_id,
        ),
    )
)


@dataclass(frozen=True, slots=True)
class Due:
    """One leased delivery and what its attempt needs."""

    workspace_id: str
    delivery_id: str
    endpoint_id: str
    event_id: str
    attempts: int  # made before this one
    lease_until: datetime
    body: dict[str, Any] | None  # None: the event is no longer kept
    url: str
    enabled: bool
    secret_sealed: str
    previous_secret_sealed: str | None
    previous_secret_expires_at: datetime | None


# For the metrics: the oldest due delivery (by when it came due, the queue's index), and the
# oldest waiting for a retry (by its creation: a scan of the pending deliveries not yet due,
# so it runs every few seconds, not every poll). The horizon is past any retry (a schedule's
# waits, Retry-After's day) within the 30 days deliveries are kept.
_OLDEST_DUE = select(func.min(webhook_deliveries.c.next_attempt_at)).where(_IS_DUE)
_RETRY_HORIZON = timedelta(days=366)
_OLDEST_RETRYING = select(func.min(webhook_deliveries.c.created_at)).where(
    webhook_deliveries.c.next_attempt_at <= bindparam("horizon"),
    webhook_deliveries.c.status == literal_column("'pending'"),
    webhook_deliveries.c.next_attempt_at > bindparam("at"),
    webhook_deliveries.c.attempts > 0,
)


async def oldest_pending(db: Database, at: datetime) -> tuple[float, float]:
    """Seconds since the oldest due delivery came due, and since the oldest one waiting for
    a retry was created; 0 for none."""
    async with db.read() as connection:
        due = await connection.scalar(_OLDEST_DUE, {"at": at})
        retrying = await connection.scalar(
            _OLDEST_RETRYING, {"at": at, "horizon": at + _RETRY_HORIZON}
        )
    return (
        (at - due).total_seconds() if due is not None else 0.0,
        (at - retrying).total_seconds() if retrying is not None else 0.0,
    )


@dataclass(frozen=True, slots=True)
class Candidate:
    """A due delivery a dispatcher could take."""

    workspace_id: str
    delivery_id: str
    endpoint_id: str


_CANDIDATES = Read(_CANDIDATES_READ, lambda row: Candidate(*row))


async def candidates(
    db: Database,
    at: datetime,
    how_many: int,
    per_endpoint: int,
    full_endpoints: Sequence[str] = (),
    full_workspaces: Sequence[str] = (),
) -> list[Candidate]:
    """Up to `how_many` deliveries due at `at`, at most `per_endpoint` of each endpoint:
    every endpoint's oldest first, then every endpoint's second... Endpoints and workspaces
    that are full are left out. A read: nothing is taken yet."""
    return await db.fetch(
        _CANDIDATES,
        at=at,
        how_many=how_many,
        per_endpoint=per_endpoint,
        full_endpoints=full_endpoints,
        full_workspaces=full_workspaces,
    )


async def take(
    db: Database,
    at: datetime,
    picked: Sequence[Candidate],
    lease: timedelta = LEASE,
    first: Callable[[Connection], Awaitable[None]] | None = None,
) -> list[Due]:
    """Lease those of `picked` still due at `at` (another dispatcher may have taken some)
    and load them, whatever the batch's size: one statement on PostgreSQL, two on SQLite,
    in one short transaction. `first` writes something else in that transaction before the
    claim (the outcomes waiting); nothing is written when nothing is picked."""
    if not picked:
        return []
    lease_end = at + lease
    parameters = {
        "at": at,
        "lease_end": lease_end,
        "workspaces": sorted({one.workspace_id for one in picked}),
        "ids": [one.delivery_id for one in picked],
    }
    async with db.transaction() as connection:
        if first is not None:
            await first(connection)
        if connection.dialect.name == "postgresql":
            rows = await connection.rows(_CLAIM_AND_LOAD, parameters)
            return [_due(row, lease_end) for row in rows]
        keys = await connection.rows(_CLAIM, parameters)
        if not keys:
            return []
        return await _load(connection, {key[1]: (key[0], lease_end) for key in keys})


async def claim(db: Database, at: datetime, limit: int, lease: timedelta = LEASE) -> list[Due]:
    """Lease and load up to `limit` deliveries due at `at`, endpoint by endpoint."""
    return await take(db, at, await candidates(db, at, limit, limit), lease)


async def park(
    db: Database,
    workspace_id: str,
    endpoint_id: str,
    at: datetime,
    until: datetime,
    held: Sequence[Due] = (),
) -> None:
    """Nothing of the endpoint is due before `until`: its deliveries due at `at`, and `held`
    (taken by this dispatcher, not sent)."""
    parameters = {
        "in_workspace": workspace_id,
        "of_endpoint": endpoint_id,
        "at": at,
        "until": until,
        "held": [due.delivery_id for due in held],
    }
    async with db.transaction() as connection:
        await connection.execute(_PARK, parameters)


async def release(db: Database, held: Sequence[Due], at: datetime) -> None:
    """Deliveries taken by this dispatcher and not sent are due again at `at`."""
    if not held:
        return
    parameters = [
        {
            "in_workspace": due.workspace_id,
            "the_delivery": due.delivery_id,
            "held_until": due.lease_until,
            "due_at": at,
        }
        for due in held
    ]
    async with db.transaction() as connection:
        await connection.run_many(_RELEASE, parameters)


Target = tuple[str, bool, str, str | None, datetime | None]


def _target(row: Any) -> Target:
    url, enabled, sealed, previous_sealed, previous_expires_at = row
    return url, bool(enabled), sealed, previous_sealed, previous_expires_at


async def _load(connection: Connection, leases: dict[str, tuple[str, datetime]]) -> list[Due]:
    """The deliveries (by id: their workspace and the end of their lease) with their
    endpoints and events. One gone meanwhile (its endpoint deleted) has no row, and nothing
    to do."""
    parameters = {
        "workspaces": sorted({workspace_id for workspace_id, _ in leases.values()}),
        "ids": list(leases),
    }
    rows = await connection.rows(_LOAD, parameters)
    return [_due(row, leases[row[1]][1]) for row in rows]


def _due(row: Any, lease_end: datetime) -> Due:
    workspace_id, delivery_id, endpoint_id, event_id, attempts, payload = row[:6]
    event_row = row[11:]
    if payload is not None:
        body: dict[str, Any] | None = payload
    elif event_row[0] is not None:
        body = Event(*event_row).body()
    else:
        body = None
    return Due(
        workspace_id,
        delivery_id,
        endpoint_id,
        event_id,
        int(attempts),
        lease_end,
        body,
        *_target(row[6:11]),
    )
