"""Reading labels: by id, a page of the workspace's, and those of many issues at once.
Each is one statement, whatever the number of ids or the page size."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import bindparam, select

from supportdesk.db import Database, Read, in_ids
from supportdesk.db.connection import Connection
from supportdesk.db.tables import issue_labels, labels
from supportdesk.domain.counting import count_rows
from supportdesk.domain.ids import is_id_of
from supportdesk.domain.labels.models import LABEL_COLUMNS, Label, label_of
from supportdesk.domain.pagination import Page, PageRequest, page_of
from supportdesk.domain.per_parent import ById

_LABELS = ById(LABEL_COLUMNS, Label)

# Every label of each issue, by name: an issue carries at most 20, so no page is needed.
_OF_ISSUES = Read(
    select(issue_labels.c.issue_id, *LABEL_COLUMNS)
    .join(
        labels,
        (labels.c.workspace_id == issue_labels.c.workspace_id)
        & (labels.c.id == issue_labels.c.label_id),
    )
    .where(
        issue_labels.c.workspace_id == bindparam("workspace_id"),
        in_ids(issue_labels.c.issue_id, "issue_ids"),
    )
    .order_by(issue_labels.c.issue_id, labels.c.name_normalized, labels.c.id),
    lambda row: (row[0], label_of(row[1:])),
)


async def get_labels(db: Database, workspace_id: str, ids: Sequence[str]) -> dict[str, Label]:
    """Labels by id, one statement for any number of them."""
    return await _LABELS.fetch(db, workspace_id, ids)


async def labels_of_issues(
    db: Database, workspace_id: str, issue_ids: Sequence[str]
) -> dict[str, list[Label]]:
    """Each issue's labels, by name (an empty list for none)."""
    found: dict[str, list[Label]] = {issue_id: [] for issue_id in issue_ids}
    for issue_id, label in await db.fetch(
        _OF_ISSUES, workspace_id=workspace_id, issue_ids=issue_ids
    ):
        found[issue_id].append(label)
    return found


async def labels_of_issues_in(
    connection: Connection, workspace_id: str, issue_ids: Sequence[str]
) -> dict[str, list[Label]]:
    """Each issue's labels, by name, inside a transaction."""
    found: dict[str, list[Label]] = {issue_id: [] for issue_id in issue_ids}
    rows = await connection.fetch(_OF_ISSUES, workspace_id=workspace_id, issue_ids=issue_ids)
    for issue_id, label in rows:
        found[issue_id].append(label)
    return found


async def labels_of_issue_in(
    connection: Connection, workspace_id: str, issue_id: str
) -> list[Label]:
    """One issue's labels, by name, inside a transaction."""
    return (await labels_of_issues_in(connection, workspace_id, [issue_id]))[issue_id]


# FOR KEY SHARE on PostgreSQL: a label being deleted is waited for and then not found, so
# a writer that goes on to put these labels on issues never meets one deleted under it
# (SQLite's writer is alone anyway).
_KNOWN = (
    select(labels.c.id)
    .where(labels.c.workspace_id == bindparam("workspace_id"), in_ids(labels.c.id, "ids"))
    .with_for_update(read=True, key_share=True)
)


async def known_label_ids(
    connection: Connection, workspace_id: str, label_ids: Sequence[str]
) -> set[str]:
    """Which of these ids name labels of the workspace, kept so until the transaction ends."""
    wellformed = [label_id for label_id in label_ids if is_id_of(label_id, "Label")]
    if not wellformed:
        return set()
    rows = await connection.rows(_KNOWN, {"workspace_id": workspace_id, "ids": wellformed})
    return {row[0] for row in rows}


# Every label of a workspace by name, for a picker (the inbox's): one statement, built once.
PICKER_LIMIT = 1000
_BY_NAME = Read(
    select(*LABEL_COLUMNS)
    .where(labels.c.workspace_id == bindparam("workspace_id"))
    .order_by(labels.c.name_normalized, labels.c.id)
    .limit(PICKER_LIMIT),
    label_of,
)


async def labels_by_name(db: Database, workspace_id: str) -> list[Label]:
    """The workspace's labels by name (the first PICKER_LIMIT of them)."""
    return list(await db.fetch(_BY_NAME, workspace_id=workspace_id))


async def list_labels(db: Database, workspace_id: str, page: PageRequest) -> Page[Label]:
    """The workspace's labels in creation order."""
    query = select(*LABEL_COLUMNS).where(labels.c.workspace_id == workspace_id)
    if page.after:
        query = query.where(labels.c.id > page.after)
    async with db.read() as connection:
        rows = await connection.execute(query.order_by(labels.c.id).limit(page.first + 1))
        return page_of([label_of(row) for row in rows], page.first)


async def count_labels(db: Database, workspace_id: str) -> int:
    return await count_rows(db, labels, workspace_id)
