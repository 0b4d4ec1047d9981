"""PostgreSQL: write transactions that name a workspace's turn (`Database.transaction(turn=)`)
take turns in the process before they take a connection; other workspaces' do not wait on
them. (SQLite's writers all take turns, whatever they name.)"""

from __future__ import annotations

import asyncio

from sqlalchemy import text

from supportdesk.config import normalise_database_url
from supportdesk.db import Database


def _most_at_once(postgresql_url: str, turns: list[str], until_all_in: bool) -> int:
    """How many of these transactions (one per turn named) were open at once, at most. Each
    stays open 50 ms or, `until_all_in`, until all of them are (which a turn would stop)."""

    async def run() -> int:
        db = Database(normalise_database_url(postgresql_url), pool_size=len(turns))
        open_now = most = 0
        all_in = asyncio.Event()

        async def write(turn: str) -> None:
            nonlocal open_now, most
            async with db.transaction(turn=turn) as connection:
                open_now += 1
                most = max(most, open_now)
                if most == len(turns):
                    all_in.set()
                if until_all_in:
                    await all_in.wait()
                await connection.execute(text("SELECT pg_sleep(0.05)"))
                open_now -= 1

        try:
            async with asyncio.timeout(20):
                await asyncio.gather(*(write(turn) for turn in turns))
        finally:
            await db.dispose()
        return most

    return asyncio.run(run())


def test_the_writers_of_one_workspace_take_turns(postgresql_url: str) -> None:
    assert _most_at_once(postgresql_url, ["ws_a"] * 5, until_all_in=False) == 1


def test_the_writers_of_other_workspaces_do_not_wait(postgresql_url: str) -> None:
    assert _most_at_once(postgresql_url, ["ws_a", "ws_b", "ws_c"], until_all_in=True) == 3
