"""`Connection.write`: a write whose rows nobody reads waits for the transaction's next
statement or its commit, and on PostgreSQL the writes waiting go as one statement. What is
written, and what fails, is the same as had each been sent at once, on both backends."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import bindparam, func, insert, select
from sqlalchemy.exc import IntegrityError

from supportdesk.db.compiled import TOGETHER_AT_MOST
from supportdesk.db.connection import Connection
from supportdesk.db.tables import labels
from supportdesk.domain.clock import now
from supportdesk.domain.ids import new_id
from tests.conftest import WorkspaceFixture

INSERT_LABEL = insert(labels)
LABELS_NAMED = select(func.count()).where(
    labels.c.workspace_id == bindparam("workspace_id"),
    labels.c.name.like(bindparam("pattern")),
)


class Undo(Exception):
    pass


def _label(workspace: WorkspaceFixture, name: str) -> dict[str, Any]:
    moment = now()
    return {
        "workspace_id": workspace.id,
        "id": new_id("Label", moment),
        "name": name,
        "name_normalized": name.lower(),
        "color": "#aabbcc",
        "description": "",
        "created_at": moment,
        "updated_at": moment,
    }


async def _count(connection: Connection, workspace: WorkspaceFixture, prefix: str) -> int:
    parameters = {"workspace_id": workspace.id, "pattern": f"{prefix}%"}
    [(count,)] = await connection.rows(LABELS_NAMED, parameters)
    return int(count)


def _written(workspace: WorkspaceFixture, prefix: str) -> int:
    async def count() -> int:
        async with workspace.server.db.read() as connection:
            return await _count(connection, workspace, prefix)

    return workspace.server.call(count())


def _inserts(workspace: WorkspaceFixture) -> list[str]:
    return [s for s in workspace.server.statements.of_requests() if "INSERT INTO labels" in s]


def test_waiting_writes_are_written_with_the_commit(workspace: WorkspaceFixture) -> None:
    async def write() -> None:
        async with workspace.server.db.transaction() as connection:
            await connection.write(INSERT_LABEL, _label(workspace, "commit-1"))
            await connection.write_many(
                INSERT_LABEL, [_label(workspace, "commit-2"), _label(workspace, "commit-3")]
            )

    workspace.server.statements.reset()
    workspace.server.call(write())

    assert _written(workspace, "commit-") == 3
    sent = _inserts(workspace)
    if workspace.server.backend == "postgresql":
        [together] = sent  # one statement, one round trip
        assert together.startswith("WITH w1 AS (INSERT INTO labels")
    else:
        assert len(sent) == 2  # sent at once: one call each


def test_the_next_statement_sees_the_writes_waiting(workspace: WorkspaceFixture) -> None:
    async def write_then_count() -> int:
        async with workspace.server.db.transaction() as connection:
            await connection.write(INSERT_LABEL, _label(workspace, "seen-1"))
            return await _count(connection, workspace, "seen-")

    assert workspace.server.call(write_then_count()) == 1


def test_a_failed_transaction_writes_nothing_that_waited(workspace: WorkspaceFixture) -> None:
    async def write_then_fail() -> None:
        async with workspace.server.db.transaction() as connection:
            await connection.write(INSERT_LABEL, _label(workspace, "undone-1"))
            raise Undo

    with pytest.raises(Undo):
        workspace.server.call(write_then_fail())
    assert _written(workspace, "undone-") == 0


def test_a_waiting_write_that_fails_fails_the_whole_transaction(
    workspace: WorkspaceFixture,
) -> None:
    async def write(names: list[str]) -> None:
        async with workspace.server.db.transaction() as connection:
            for name in names:
                await connection.write(INSERT_LABEL, _label(workspace, name))

    workspace.server.call(write(["taken"]))

    with pytest.raises(IntegrityError):  # the same error as had it been sent at once
        workspace.server.call(write(["fails-1", "taken", "fails-2"]))
    assert _written(workspace, "fails-") == 0


def test_more_rows_than_go_together_are_all_written(workspace: WorkspaceFixture) -> None:
    count = TOGETHER_AT_MOST + 3

    async def write() -> None:
        async with workspace.server.db.transaction() as connection:
            await connection.write(INSERT_LABEL, _label(workspace, "many-first"))
            await connection.write_many(
                INSERT_LABEL, [_label(workspace, f"many-{n}") for n in range(count - 1)]
            )

    workspace.server.statements.reset()
    workspace.server.call(write())

    assert _written(workspace, "many-") == count
    assert len(_inserts(workspace)) == 2  # one call per statement
