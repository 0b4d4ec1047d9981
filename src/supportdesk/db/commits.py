"""A callback after each write transaction this process commits, for readers that want to
look at once at what was written (the live event stream) instead of at their next poll.

The mark is made at COMMIT and the callbacks run when the connection is back in its pool,
so after the COMMIT has finished: a reader they wake sees what the transaction wrote. They
run for every write transaction, whatever it wrote; a reader that wants only some rows
looks for them itself."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from weakref import WeakKeyDictionary

from sqlalchemy import event
from sqlalchemy.pool import Pool

from supportdesk.db.database import Database

_COMMITTED = "supportdesk.committed"
_CALLBACKS: WeakKeyDictionary[Pool, list[Callable[[], None]]] = WeakKeyDictionary()


def after_commits(db: Database, committed: Callable[[], None]) -> None:
    """Calls `committed()` after every write transaction `db` commits in this process (on
    the thread that committed; it must not block)."""
    for engine in db.engines:
        callbacks = _CALLBACKS.get(engine.pool)
        if callbacks is None:
            callbacks = _CALLBACKS[engine.pool] = []
            event.listen(engine, "commit", _mark)
            event.listen(engine.pool, "checkin", _checked_in(callbacks))
        callbacks.append(committed)


def _mark(connection: Any) -> None:
    connection.info[_COMMITTED] = True


def _checked_in(callbacks: list[Callable[[], None]]) -> Callable[[Any, Any], None]:
    def fire(_driver: Any, record: Any) -> None:
        if record is not None and record.info.pop(_COMMITTED, False):
            for committed in callbacks:
                committed()

    return fire
