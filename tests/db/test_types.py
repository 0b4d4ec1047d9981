"""UTCDateTime's own SQLite binding writes exactly the text SQLAlchemy's DateTime writes (rows
written before it, and SQL comparing moments as text, must keep agreeing), and a moment
comes back as the same aware UTC instant."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from sqlalchemy import DateTime
from sqlalchemy.dialects import sqlite

from supportdesk.db.types import UTCDateTime

MOMENTS = [
    datetime(2026, 11, 26, 18, 1, 38, 150783, tzinfo=UTC),
    datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC),  # no microseconds: still six digits
    datetime(2026, 1, 2, 3, 4, 5, 6, tzinfo=UTC),
    datetime(1999, 12, 31, 23, 59, 59, 999999, tzinfo=timezone(timedelta(hours=-5))),
    datetime(2026, 3, 29, 1, 30, tzinfo=timezone(timedelta(hours=5, minutes=45))),
    datetime(1, 1, 1, 12, 0, tzinfo=UTC),
    datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC),
]


@pytest.mark.parametrize("moment", MOMENTS, ids=str)
def test_a_moment_is_written_as_sqlalchemy_writes_it_on_sqlite(moment: datetime) -> None:
    dialect = sqlite.dialect()
    ours = UTCDateTime().bind_processor(dialect)
    theirs = DateTime().dialect_impl(dialect).bind_processor(dialect)
    assert ours is not None and theirs is not None
    written = ours(moment)
    assert written == theirs(moment.astimezone(UTC).replace(tzinfo=None))
    read = UTCDateTime().process_result_value(written, dialect)
    assert read == moment
    assert read is not None and read.utcoffset() == timedelta(0)


def test_none_stays_null() -> None:
    ours = UTCDateTime().bind_processor(sqlite.dialect())
    assert ours is not None
    assert ours(None) is None
