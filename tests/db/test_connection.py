"""One connection type runs every statement on the driver: prebuilt statements and those
built per call take part in the same transaction, on both backends; SQLite's writer waits
for another process's write lock without stopping the event loop."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time

import pytest
from sqlalchemy import bindparam, insert, select, text, update
from sqlalchemy.engine import make_url
from sqlalchemy.exc import IntegrityError

from supportdesk.db.deadline import DeadlinePassed, statements_within
from supportdesk.db.tables import issues
from tests.conftest import WorkspaceFixture
from tests.graphql.issues.helpers import new_issue

RENAME = (
    update(issues)
    .where(issues.c.workspace_id == bindparam("in_workspace"), issues.c.id == bindparam("the_id"))
    .values(subject=bindparam("new_subject", type_=issues.c.subject.type))
    .returning(issues.c.subject)
)
INSERT_ISSUE = insert(issues)
SUBJECT = select(issues.c.subject).where(
    issues.c.workspace_id == bindparam("workspace_id"), issues.c.id == bindparam("id")
)


class Undo(Exception):
    pass


def _subject(workspace: WorkspaceFixture, issue_id: str) -> str:
    async def read() -> str:
        async with workspace.server.db.read() as connection:
            return str(
                await connection.scalar(SUBJECT, {"workspace_id": workspace.id, "id": issue_id})
            )

    return workspace.server.call(read())


def test_a_driver_write_first_in_a_transaction_is_rolled_back_with_it(
    workspace: WorkspaceFixture,
) -> None:
    issue_id = new_issue(workspace.client(), subject="Before")["id"]
    db = workspace.server.db
    parameters = {"in_workspace": workspace.id, "the_id": issue_id, "new_subject": "After"}

    async def rename_then_fail() -> str:
        try:
            async with db.transaction() as connection:
                # The transaction's first statement goes to the driver: it must open the
                # transaction, or it would commit on its own.
                [(renamed,)] = await connection.rows(RENAME, parameters)
                seen = await connection.scalar(
                    SUBJECT, {"workspace_id": workspace.id, "id": issue_id}
                )
                assert (renamed, seen) == ("After", "After")
                raise Undo
        except Undo:
            pass
        return "rolled back"

    workspace.server.call(rename_then_fail())
    assert _subject(workspace, issue_id) == "Before"

    async def rename() -> None:
        async with db.transaction() as connection:
            await connection.rows(RENAME, parameters)

    workspace.server.call(rename())
    assert _subject(workspace, issue_id) == "After"


def test_a_driver_write_raises_sqlalchemys_integrity_error(workspace: WorkspaceFixture) -> None:
    made = new_issue(workspace.client())
    db = workspace.server.db

    async def insert_again() -> None:
        async with db.transaction() as connection:
            [row] = await connection.rows(
                select(issues).where(
                    issues.c.workspace_id == bindparam("workspace_id"),
                    issues.c.id == bindparam("id"),
                ),
                {"workspace_id": workspace.id, "id": made["id"]},
            )
            await connection.rows(INSERT_ISSUE, dict(zip(issues.c.keys(), row, strict=True)))

    with pytest.raises(IntegrityError):
        workspace.server.call(insert_again())


def test_sqlite_writer_waits_for_another_process_lock_without_blocking_the_loop(
    workspace: WorkspaceFixture,
) -> None:
    if workspace.server.backend != "sqlite":
        pytest.skip("PostgreSQL's writers wait on row locks, in the database")
    issue_id = new_issue(workspace.client(), subject="Before")["id"]
    path = make_url(workspace.server.database_url).database
    assert path is not None
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")  # another process's writer holds the lock
    held = 0.3
    threading.Timer(held, lambda: other.execute("COMMIT")).start()
    db = workspace.server.db
    parameters = {"in_workspace": workspace.id, "the_id": issue_id, "new_subject": "After"}

    async def write_while_ticking() -> tuple[float, int]:
        ticks = 0
        done = asyncio.Event()

        async def tick() -> None:
            nonlocal ticks
            while not done.is_set():
                ticks += 1
                await asyncio.sleep(0.01)

        ticker = asyncio.create_task(tick())
        started = time.monotonic()
        async with db.transaction() as connection:
            waited = time.monotonic() - started
            await connection.rows(RENAME, parameters)
        done.set()
        await ticker
        return waited, ticks

    try:
        waited, ticks = workspace.server.call(write_while_ticking())
    finally:
        other.close()
    assert waited >= held * 0.8
    # The loop went on while the writer waited: about one tick per 10 ms.
    assert ticks >= 10
    assert _subject(workspace, issue_id) == "After"


def test_a_sqlite_statement_that_runs_past_the_deadline_is_interrupted(
    workspace: WorkspaceFixture,
) -> None:
    if workspace.server.backend != "sqlite":
        pytest.skip("PostgreSQL's statements are cancelled by asyncio's time-out")
    db = workspace.server.db
    # About a second of work for SQLite; the deadline is a twentieth of that.
    endless = text(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000000) "
        "SELECT count(*) FROM n"
    )

    async def count_past_the_deadline() -> float:
        started = time.monotonic()
        with pytest.raises(DeadlinePassed), statements_within(0.05):
            async with db.read() as connection:
                await connection.scalar(endless)
        return time.monotonic() - started

    took = workspace.server.call(count_past_the_deadline())
    assert took < 0.5

    # Nothing is left behind: the connection answers the next statement.

    async def after() -> int:
        async with db.read() as connection:
            return int(await connection.scalar(text("SELECT 1")))

    assert workspace.server.call(after()) == 1
