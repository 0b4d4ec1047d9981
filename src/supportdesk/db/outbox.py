"""What a transaction that queued webhook deliveries tells this process's dispatcher once it
has committed, so that the first attempt leaves at once instead of at the next poll.

When a dispatcher runs in this process (`Database.deliveries_lease`), a writer queues its
deliveries already leased to it, for the dispatcher's lease, and hands them over with their
events' bodies: the dispatcher sends them without taking them from the queue first (a
transaction per batch that each delivery would otherwise cost), reading their endpoints
only when one of the workspace's changed since it last read them (`dispatch/queue.py`,
`Targets`). Other dispatchers leave a leased delivery alone, and when this process dies
before its attempt, the delivery is due again when the lease runs out, as one cut short is.
Without a dispatcher here, deliveries are queued due at once and the writer only marks that
some are waiting.

`Database.transaction` gives the transaction the lease and, after the commit, passes the
keys on; a rolled-back transaction hands over nothing."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from supportdesk.db.connection import Connection

_WAITING = "supportdesk.deliveries_waiting"
_LEASE = "supportdesk.deliveries_lease"


@dataclass(frozen=True, slots=True)
class HandedOver:
    """A delivery queued leased to this process's dispatcher until `lease_until`, of the
    event `event_id` (whose JSON is `body`) to the endpoint `endpoint_id`, by a writer that
    saw the workspace's endpoints at webhook generation `generation`."""

    workspace_id: str
    delivery_id: str
    lease_until: datetime
    endpoint_id: str
    event_id: str
    body: dict[str, Any]
    generation: int


def offer_lease(connection: Connection, lease: timedelta | None) -> None:
    """Set by the transaction: how long deliveries it queues are leased to this process's
    dispatcher (None: none runs here)."""
    connection.info[_LEASE] = lease


def lease_here(connection: Connection) -> timedelta | None:
    """The lease a writer queues its deliveries with (`hand_over`), or None: queue them due."""
    lease: timedelta | None = connection.info.get(_LEASE)
    return lease


def mark_deliveries_waiting(connection: Connection) -> None:
    """Deliveries due now were queued: the dispatcher should look at the queue."""
    connection.info.setdefault(_WAITING, [])


def hand_over(connection: Connection, handed: Sequence[HandedOver]) -> None:
    """Deliveries leased to this process's dispatcher were queued: it sends them."""
    connection.info.setdefault(_WAITING, []).extend(handed)


def take_mark(connection: Connection) -> list[HandedOver] | None:
    """What the transaction queued (None: nothing) and handed over; clears both marks
    (connections are reused)."""
    connection.info.pop(_LEASE, None)
    waiting: list[HandedOver] | None = connection.info.pop(_WAITING, None)
    return waiting
