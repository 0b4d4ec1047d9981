"""On PostgreSQL a transaction that records events holds its workspace's row (the event
counter) from then to its commit. The process's other writers of that workspace wait for
their turn in the process, not on the row in the database, where many waiters cost
PostgreSQL more CPU than their writes; and a turn awaited too long is given up, so that a
deadlock across the turn and a row lock is still found by the database."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import asyncpg
import pytest
from sqlalchemy import bindparam, update
from sqlalchemy.exc import DBAPIError

from supportdesk.db import Database
from supportdesk.db.database import TURN_WAIT
from supportdesk.db.tables import issues
from supportdesk.domain import audit
from supportdesk.domain.events import record_events
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


def test_a_second_writer_of_the_workspace_waits_in_the_process(
    workspace: WorkspaceFixture,
) -> None:
    db = _postgres_only(workspace)

    async def scenario() -> tuple[int, bool, list[int]]:
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
        # Well inside TURN_WAIT: long enough for the second to reach the row if it would.
        await asyncio.sleep(TURN_WAIT / 3)
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


async def _looked(workspace: WorkspaceFixture, sql: str, *arguments: object) -> Any:
    """One value read beside the server, on a connection of its own (what it shows of the
    database's state, not a statement of the service's)."""
    url = workspace.server.database_url.replace("postgresql+asyncpg://", "postgresql://")
    connection = await asyncpg.connect(url)
    try:
        return await connection.fetchval(sql, *arguments)
    finally:
        await connection.close()
