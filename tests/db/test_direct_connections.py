"""PostgreSQL's direct reads keep at most `pool_size` connections of their own: a read the
database refuses leaves its connection in use, a read cut off by a time-out closes its
connection (it may still be running), and neither leaks a place. SQLite's direct reads
run inline, on one connection per thread, so there is nothing of the kind to test there."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from supportdesk.config import normalise_database_url
from supportdesk.db import Database

T = TypeVar("T")
BACKEND_PID = text("SELECT pg_backend_pid()")


@pytest.fixture
def url(postgresql_url: str) -> str:
    return normalise_database_url(postgresql_url)


def _with_database(url: str, size: int, work: Callable[[Database], Awaitable[T]]) -> T:
    async def run() -> T:
        db = Database(url, pool_size=size)
        try:
            return await work(db)
        finally:
            await db.dispose()

    return asyncio.run(run())


async def _backend(db: Database) -> int:
    [(pid,)] = await db.direct.rows(BACKEND_PID, {})
    return int(pid)


def test_a_refused_read_keeps_its_connection(url: str) -> None:
    async def work(db: Database) -> tuple[int, int]:
        before = await _backend(db)
        with pytest.raises(DBAPIError, match="division by zero"):
            await db.direct.rows(text("SELECT 1 / 0"), {})
        return before, await _backend(db)

    before, after = _with_database(url, 1, work)
    assert before == after


def test_a_read_cut_off_by_a_time_out_closes_its_connection_and_frees_its_place(
    url: str,
) -> None:
    async def work(db: Database) -> tuple[int, int]:
        before = await _backend(db)
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(0.05):
                await db.direct.rows(text("SELECT pg_sleep(2)"), {})
        # One place only: the next read waits for none and gets a new connection.
        async with asyncio.timeout(1):
            return before, await _backend(db)

    before, after = _with_database(url, 1, work)
    assert before != after


def test_concurrent_reads_share_at_most_pool_size_connections(url: str) -> None:
    moves: list[int] = []

    async def work(db: Database) -> set[int]:
        db.watch_pools(lambda pool, delta: moves.append(delta) if pool == "direct" else None)
        sleepy = text("SELECT pg_backend_pid() FROM pg_sleep(0.05)")
        answers = await asyncio.gather(*(db.direct.rows(sleepy, {}) for _ in range(8)))
        return {int(rows[0][0]) for rows in answers}

    backends = _with_database(url, 2, work)
    assert len(backends) == 2
    assert moves.count(1) == 8 and sum(moves) == 0
