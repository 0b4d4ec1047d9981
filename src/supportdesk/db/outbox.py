"""Wakes this process's webhook dispatcher when a transaction that queued deliveries
commits, so the first attempt leaves at once instead of at the next poll.

The writer marks its connection; `Database.transaction` reads the mark after the commit
and calls the listeners. A rolled-back transaction wakes nobody."""

from __future__ import annotations

from supportdesk.db.connection import Connection

DELIVERIES_WAITING = "supportdesk.deliveries_waiting"


def mark_deliveries_waiting(connection: Connection) -> None:
    connection.info[DELIVERIES_WAITING] = True


def take_mark(connection: Connection) -> bool:
    """Whether the transaction queued deliveries; clears the mark (connections are reused)."""
    return bool(connection.info.pop(DELIVERIES_WAITING, False))
