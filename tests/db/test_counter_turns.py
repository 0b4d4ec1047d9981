"""On PostgreSQL a transaction that moves its workspace's counters (events, ticket numbers)
holds the workspace's row from then to its commit. The process's other writers of that
workspace wait for their turn in the process (`Connection.take_turn`), not on the row in
the database, where many waiters cost PostgreSQL more CPU than their writes; other
workspaces' writers do not wait on them; and a turn awaited too long is given up, so that
a deadlock across the turn and a row lock is still found by the database."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import asyncpg
import pytest
from sqlalchemy import bindparam, text, update
from sqlalchemy.exc import DBAPIError

from supportdesk.config import normalise_database_url
from supportdesk.db import Database, database
from supportdesk.db.database import TURN_WAIT
from supportdesk.db.tables import issues
from supportdesk.domain import audit
from supportdesk.domain.events import record_events
from supportdesk.domain.issues.actions import NewIssue, create_issue
from tests.conftest import WorkspaceFixture
from tests.graphql.issues.helpers import new_issue

# The workspace's events, in sequence order, with no gap from its first.
EVENT_TYPES = """
SELECT array_agg(type ORDER BY sequence) FILTER (WHERE type = 'test.turn')
FROM events WHERE workspace_id = $1
HAVING max(sequence) - min(sequence) + 1 = count(*)
"""
WAITING_ON_THE_COUNTER = """
SELECT count(*) FROM pg_stat_activity
WHERE datname = current_database() AND wait_event_type = 'Lock'
  AND query LIKE 'UPDATE workspaces SET last_event_sequence%'
"""
RENAME = (
    update(issues)
    .where(issues.c.workspace_id == bindparam("in_workspace"), issues.c.id == bindparam("the_id"))
    .values(subject=bindparam("new_subject", type_=issues.c.subject.type))
)


def _postgres_only(workspace: WorkspaceFixture) -> Database:
    db = workspace.server.db
    if db.is_sqlite:
        pytest.skip("SQLite's writers take turns at BEGIN IMMEDIATE")
    return db


async def _recorded(db: Database, workspace_id: str, note: str) -> None:
    async with db.transaction() as connection:
        await record_events(connection, workspace_id, audit.CLI_ACTOR, [("test.turn", {"n": note})])


def _most_at_once(postgresql_url: str, workspaces: list[str], until_all_in: bool) -> int:
    """How many of these transactions (one per workspace named) held their turn at once, at
    most. Each holds it 50 ms or, `until_all_in`, until all of them do (which a turn of
    one workspace would stop)."""

    async def run() -> int:
        db = Database(normalise_database_url(postgresql_url), pool_size=len(workspaces))
        holding = most = 0
        all_in = asyncio.Event()

        async def write(workspace_id: str) -> None:
            nonlocal holding, most
            async with db.transaction() as connection:
                await connection.take_turn(workspace_id)
                holding += 1
                most = max(most, holding)
                if most == len(workspaces):
                    all_in.set()
                if until_all_in:
                    await all_in.wait()
                await connection.execute(text("SELECT pg_sleep(0.05)"))
                holding -= 1

        try:
            async with asyncio.timeout(20):
                await asyncio.gather(*(write(workspace_id) for workspace_id in workspaces))
        finally:
            await db.dispose()
        return most

    return asyncio.run(run())


def test_the_writers_of_one_workspace_take_turns(postgresql_url: str) -> None:
    assert _most_at_once(postgresql_url, ["ws_a"] * 5, until_all_in=False) == 1


def test_the_writers_of_other_workspaces_do_not_wait(postgresql_url: str) -> None:
    assert _most_at_once(postgresql_url, ["ws_a", "ws_b", "ws_c"], until_all_in=True) == 3


def test_a_second_writer_of_the_workspace_waits_in_the_process(
    workspace: WorkspaceFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = _postgres_only(workspace)
    # Longer than the check below may take on a busy machine: the second must still be
    # waiting for its turn when PostgreSQL is asked who waits for the row.
    monkeypatch.setattr(database, "TURN_WAIT", 30.0)

    async def scenario() -> tuple[int, bool, list[str]]:
        counted = asyncio.Event()
        finish = asyncio.Event()

        async def first() -> None:
            async with db.transaction() as connection:
                await record_events(connection, workspace.id, audit.CLI_ACTOR, [("test.turn", {})])
                counted.set()
                await finish.wait()

        holder = asyncio.create_task(first())
        await counted.wait()
        second = asyncio.create_task(_recorded(db, workspace.id, "second"))
        # Until the second is waiting: for its turn here, or for the row in PostgreSQL.
        async with asyncio.timeout(10):
            while not await _looked(workspace, WAITING_ON_THE_COUNTER):
                if _turn_users(db, workspace.id) == 2:
                    break
                await asyncio.sleep(0.01)
        waiting = await _looked(workspace, WAITING_ON_THE_COUNTER)
        early = second.done()
        finish.set()
        await asyncio.gather(holder, second)
        types = await _looked(workspace, EVENT_TYPES, workspace.id)
        return waiting, early, types

    waiting, early, types = workspace.server.call(scenario())
    assert (waiting, early) == (0, False)
    assert types == ["test.turn", "test.turn"]


def test_a_turn_awaited_too_long_leaves_a_deadlock_to_the_database(
    workspace: WorkspaceFixture,
) -> None:
    """One writer holds the turn and waits for an issue's row; the other holds that row
    and waits for the turn. After TURN_WAIT the second goes to the counter's row, where
    PostgreSQL sees the cycle and ends one of them: neither waits forever."""
    db = _postgres_only(workspace)
    issue_id = new_issue(workspace.client())["id"]
    rename = {"in_workspace": workspace.id, "the_id": issue_id}

    async def scenario() -> tuple[list[BaseException | None], float]:
        renamed = asyncio.Event()
        counted = asyncio.Event()

        async def holds_the_turn() -> None:
            async with db.transaction() as connection:
                await record_events(connection, workspace.id, audit.CLI_ACTOR, [("test.turn", {})])
                counted.set()
                await renamed.wait()
                await connection.execute(RENAME, {**rename, "new_subject": "From the turn"})

        async def holds_the_issue() -> None:
            try:
                async with db.transaction() as connection:
                    await counted.wait()
                    await connection.execute(RENAME, {**rename, "new_subject": "From the row"})
                    renamed.set()
                    await record_events(
                        connection, workspace.id, audit.CLI_ACTOR, [("test.turn", {})]
                    )
            finally:
                renamed.set()  # a failure before it must not leave the other waiting

        started = time.monotonic()
        outcomes = await asyncio.wait_for(
            asyncio.gather(holds_the_turn(), holds_the_issue(), return_exceptions=True), 20
        )
        return [outcome if isinstance(outcome, BaseException) else None for outcome in outcomes], (
            time.monotonic() - started
        )

    outcomes, seconds = workspace.server.call(scenario())
    failed = [outcome for outcome in outcomes if outcome is not None]
    assert len(failed) == 1, outcomes
    assert isinstance(failed[0], DBAPIError) and "deadlock" in str(failed[0].orig).lower()
    assert seconds >= TURN_WAIT


def _turn_users(db: Database, workspace_id: str) -> int:
    """How many transactions of this thread hold or await the workspace's turn."""
    _, users = db._turns.workspaces.get(workspace_id, (None, 0))
    return users


async def _looked(workspace: WorkspaceFixture, sql: str, *arguments: object) -> Any:
    """One value read beside the server, on a connection of its own (what it shows of the
    database's state, not a statement of the service's)."""
    url = workspace.server.database_url.replace("postgresql+asyncpg://", "postgresql://")
    connection = await asyncpg.connect(url)
    try:
        return await connection.fetchval(sql, *arguments)
    finally:
        await connection.close()


def test_a_writer_waiting_for_a_connection_holds_no_turn(
    workspace: WorkspaceFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """More writers than connections: the ones holding a connection wait for the turn, so
    the one holding the turn must already hold its connection. (A createIssue that took
    the turn first, then waited for a connection, stalled them all for TURN_WAIT.)"""
    _postgres_only(workspace)
    monkeypatch.setattr(database, "TURN_WAIT", 10.0)
    url = normalise_database_url(workspace.server.database_url)
    new = NewIssue("Busy pool", "All connections taken.", "busy@example.com")

    async def writes() -> float:
        db = Database(url, pool_size=1)  # two connections
        try:
            started = time.monotonic()
            async with asyncio.timeout(30):
                await asyncio.gather(
                    create_issue(db, audit.CLI_ACTOR, workspace.id, new),
                    *(_recorded(db, workspace.id, str(n)) for n in range(4)),
                    create_issue(db, audit.CLI_ACTOR, workspace.id, new),
                )
            return time.monotonic() - started
        finally:
            await db.dispose()

    assert workspace.server.call(writes()) < 5
