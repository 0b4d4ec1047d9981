"""INSERT … ON CONFLICT, which each backend spells with its own SQLAlchemy construct: the
domain asks for an insert on a connection and this module picks the dialect's, so no
dialect check is written outside `db/`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

from sqlalchemy import Table
from sqlalchemy.dialects import postgresql, sqlite

from supportdesk.db.connection import Connection

T = TypeVar("T")

_INSERTS: dict[str, Callable[[Table], Any]] = {
    "postgresql": postgresql.insert,
    "sqlite": sqlite.insert,
}


def insert_on(connection: Connection, table: Table) -> Any:
    """An INSERT into `table` for the connection's backend, with `on_conflict_do_nothing`
    and `on_conflict_do_update` (both backends accept the same arguments for these)."""
    return _INSERTS[connection.dialect.name](table)


class PerDialect(Generic[T]):
    """A statement built once per backend, from `build(insert)` where `insert` makes that
    backend's INSERT (building an upsert on every call costs more than running it)."""

    def __init__(self, build: Callable[[Callable[[Table], Any]], T]) -> None:
        self._built = {name: build(insert) for name, insert in _INSERTS.items()}

    def on(self, connection: Connection) -> T:
        return self._built[connection.dialect.name]
