"""`Database.ping()` (behind /readyz) answers whether the database answers a statement."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from supportdesk.config import normalise_database_url
from supportdesk.db import Database


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        sqlite3.connect(tmp_path / "ping.db").close()  # made, as migrating makes it
        return f"sqlite+aiosqlite:///{tmp_path / 'ping.db'}"
    return normalise_database_url(str(request.getfixturevalue("postgresql_url")))


def _unreachable(url: str, tmp_path: Path) -> str:
    if url.startswith("sqlite"):
        return f"sqlite:///{tmp_path}"  # a folder: SQLite cannot open it
    return "postgresql+asyncpg://postgres@127.0.0.1:1/nowhere"  # nothing listens on port 1


def _ping(db: Database) -> bool:
    async def ping_then_close() -> bool:
        try:
            return await db.ping()
        finally:
            await db.dispose()

    return asyncio.run(ping_then_close())


def test_a_database_that_answers_is_ready(database_url: str) -> None:
    assert _ping(Database(database_url, pool_size=1)) is True


def test_a_database_that_cannot_be_reached_is_not_ready(database_url: str, tmp_path: Path) -> None:
    assert _ping(Database(_unreachable(database_url, tmp_path), pool_size=1)) is False
