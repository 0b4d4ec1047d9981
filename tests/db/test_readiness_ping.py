"""`Database.ping()` (behind /readyz) answers through every pool that reads: SQLAlchemy's
and the direct reads'. A database that answers one of them but not the other is not ready."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from supportdesk.config import normalise_database_url
from supportdesk.db import Database
from supportdesk.db.direct import PostgresReader, SqliteReader


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite+aiosqlite:///{tmp_path / 'ping.db'}"
    return normalise_database_url(str(request.getfixturevalue("postgresql_url")))


def _ping(db: Database) -> bool:
    async def ping_then_close() -> bool:
        try:
            return await db.ping()
        finally:
            await db.dispose()

    return asyncio.run(ping_then_close())


def _break_direct_reads(db: Database, tmp_path: Path) -> None:
    """Points the direct reads, and only them, at a database that cannot be reached."""
    reader = db.direct.reader
    if isinstance(reader, PostgresReader):
        reader.dsn = "postgresql://postgres@127.0.0.1:1/nowhere"  # nothing listens on port 1
    else:
        assert isinstance(reader, SqliteReader)
        reader.path = str(tmp_path)  # a folder: SQLite cannot open it


def test_a_database_that_answers_is_ready(database_url: str) -> None:
    assert _ping(Database(database_url, pool_size=1)) is True


def test_direct_reads_that_cannot_reach_the_database_make_it_unready(
    database_url: str, tmp_path: Path
) -> None:
    db = Database(database_url, pool_size=1)
    _break_direct_reads(db, tmp_path)

    assert _ping(db) is False
