"""`Database.after_commit`: told once per committed write transaction, after its
connection is given back, never for one rolled back or for a read."""

from __future__ import annotations

from sqlalchemy import bindparam, select, update

from supportdesk.config import normalise_database_url
from supportdesk.db import Database
from supportdesk.db.tables import issues
from tests.conftest import WorkspaceFixture
from tests.graphql.issues.helpers import new_issue

RENAME = (
    update(issues)
    .where(issues.c.workspace_id == bindparam("in_workspace"), issues.c.id == bindparam("the_id"))
    .values(subject=bindparam("new_subject", type_=issues.c.subject.type))
)
SUBJECT = select(issues.c.subject).where(
    issues.c.workspace_id == bindparam("in_workspace"), issues.c.id == bindparam("the_id")
)


class Undo(Exception):
    pass


def test_committed_transactions_are_told_and_rolled_back_ones_are_not(
    workspace: WorkspaceFixture,
) -> None:
    issue_id = new_issue(workspace.client(), subject="Before")["id"]
    where = {"in_workspace": workspace.id, "the_id": issue_id}
    told: list[str] = []

    async def run() -> list[str]:
        db = Database(normalise_database_url(workspace.server.database_url), pool_size=2)
        try:
            return await check(db)
        finally:
            await db.dispose()

    async def check(db: Database) -> list[str]:
        async def seen_after_commit() -> None:
            # A reader woken here sees the write: the transaction is over.
            async with db.read() as connection:
                told.append(await connection.scalar(SUBJECT, where))

        db.after_commit(lambda: told.append("told"))
        try:
            async with db.transaction() as connection:
                await connection.execute(RENAME, {**where, "new_subject": "Undone"})
                raise Undo
        except Undo:
            pass
        async with db.read() as connection:
            await connection.scalar(SUBJECT, where)
        assert told == []
        async with db.transaction() as connection:
            await connection.execute(RENAME, {**where, "new_subject": "After"})
        assert told == ["told"]
        await seen_after_commit()
        return told

    assert workspace.server.call(run()) == ["told", "After"]
