"""A compiled read: one SQL text for any number of ids, and the same rows whether it runs
straight on the driver or inside a transaction, on both backends."""

from __future__ import annotations

from sqlalchemy import bindparam, select

from supportdesk.db import Read, in_ids
from supportdesk.db.tables import issues
from tests.conftest import WorkspaceFixture
from tests.graphql.issues.helpers import new_issue

SUBJECTS = Read(
    select(issues.c.id, issues.c.subject)
    .where(issues.c.workspace_id == bindparam("workspace_id"), in_ids(issues.c.id, "ids"))
    .order_by(issues.c.id),
    tuple,
)


def test_one_statement_reads_none_one_or_many_ids_on_either_path(
    workspace: WorkspaceFixture, other_workspace: WorkspaceFixture
) -> None:
    api = workspace.client()
    made = [new_issue(api, subject=f"Subject {n}")["id"] for n in range(3)]
    foreign = new_issue(other_workspace.client())["id"]
    db = workspace.server.db
    counter = workspace.server.statements

    async def both(ids: list[str]) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
        direct = await db.fetch(SUBJECTS, workspace_id=workspace.id, ids=ids)
        async with db.transaction() as connection:
            inside = await connection.fetch(SUBJECTS, workspace_id=workspace.id, ids=ids)
        return direct, inside

    counter.reset()
    for ids, expected in [
        ([], []),
        ([made[1]], [made[1]]),
        ([made[2], made[0], "iss_unknown", foreign], [made[0], made[2]]),
        (made * 40, made),
    ]:
        direct, inside = workspace.server.call(both(ids))
        assert direct == inside
        assert [row[0] for row in direct] == expected
    subjects = {row[1] for row in workspace.server.call(both(made))[0]}
    assert subjects == {"Subject 0", "Subject 1", "Subject 2"}
    # Whatever the number of ids, the SQL text is the same: one compiled statement.
    texts = {sql for sql in counter.statements if "subject" in sql.lower()}
    assert len(texts) == 1
