"""Column types that behave the same on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import DateTime
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator


class UTCDateTime(TypeDecorator[datetime]):
    """An aware UTC datetime; SQLite keeps no zone, so one is put back on the way out."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> Any:
        if value is None:
            return None
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def bind_processor(self, dialect: Dialect) -> Callable[[Any], Any] | None:
        # On SQLite the value becomes the text SQLAlchemy's DateTime writes, in one step
        # instead of two: a write binds several (a delivery's row three), each 2.5 µs the
        # long way. tests/db/test_types.py holds it to SQLAlchemy's own text.
        if dialect.name == "sqlite":
            return sqlite_text
        return super().bind_processor(dialect)

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if isinstance(value, str):
            value = datetime.fromisoformat(value)
        moment: datetime = value
        return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def sqlite_text(value: datetime | None) -> str | None:
    """The UTC moment as SQLAlchemy's SQLite DateTime stores it: "2026-01-02 03:04:05.000006"."""
    if value is None:
        return None
    return value.astimezone(UTC).isoformat(" ", "microseconds")[:26]
