"""PostgreSQL's pool keeps at most its limit of connections: a read the database refuses
leaves its connection sound and in the pool, a read cut off by a time-out frees its place,
and concurrent reads share the pool's connections. SQLite's statements run inline, on one
reader connection per thread, so there is nothing of the kind to test there."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

import pytest
from sqlalchemy import TextClause, text
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


async def _read(db: Database, statement: TextClause) -> int:
    async with db.read() as connection:
        [(value,)] = await connection.rows(statement, {})
    return int(value)


def test_a_refused_read_keeps_its_connection(url: str) -> None:
    async def work(db: Database) -> tuple[int, int]:
        before = await _read(db, BACKEND_PID)
        with pytest.raises(DBAPIError, match="division by zero"):
            await _read(db, text("SELECT 1 / 0"))
        return before, await _read(db, BACKEND_PID)

    before, after = _with_database(url, 1, work)
    assert before == after


def test_a_read_cut_off_by_a_time_out_frees_its_place(url: str) -> None:
    async def work(db: Database) -> list[int]:
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(0.05):
                await asyncio.gather(
                    *(_read(db, text("SELECT 1 FROM pg_sleep(2)")) for _ in range(2))
                )
        # Every place is free again: reads wait for no sleeper to end.
        async with asyncio.timeout(1):
            return [await _read(db, BACKEND_PID) for _ in range(2)]

    assert len(_with_database(url, 1, work)) == 2


def test_concurrent_reads_share_at_most_the_pools_connections(url: str) -> None:
    moves: list[int] = []

    async def work(db: Database) -> set[int]:
        db.watch_pools(lambda pool, delta: moves.append(delta))
        sleepy = text("SELECT pg_backend_pid() FROM pg_sleep(0.05)")
        return set(await asyncio.gather(*(_read(db, sleepy) for _ in range(8))))

    backends = _with_database(url, 1, work)
    assert len(backends) == Database.limits_of(url, 1)["shared"] == 2
    assert moves.count(1) == 8 and sum(moves) == 0


def test_a_read_cancelled_mid_statement_never_hands_its_connection_on(url: str) -> None:
    # Its statement may still be running in the database: the connection is closed, and
    # the reads after it are answered on others.
    async def work(db: Database) -> tuple[int, list[int]]:
        pids: list[int] = []

        async def sleeper() -> None:
            async with db.read() as connection:
                [(pid,)] = await connection.rows(BACKEND_PID, {})
                pids.append(int(pid))
                await connection.rows(text("SELECT pg_sleep(2)"), {})

        with pytest.raises(TimeoutError):
            async with asyncio.timeout(0.3):
                await sleeper()
        async with asyncio.timeout(1):
            after = [await _read(db, BACKEND_PID) for _ in range(4)]
        return pids[0], after

    cancelled, after = _with_database(url, 1, work)
    assert cancelled not in after


def test_a_database_disposed_of_opens_connections_again(url: str) -> None:
    async def work(db: Database) -> tuple[int, int]:
        before = await _read(db, BACKEND_PID)
        await db.dispose()
        return before, await _read(db, BACKEND_PID)

    before, after = _with_database(url, 1, work)
    assert before != after
