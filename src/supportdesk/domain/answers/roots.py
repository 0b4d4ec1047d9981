"""The statements of compiled root fields: one statement per root field, whose single
row and column is the field's JSON as text (or no row, or null, when there is nothing)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Select, bindparam, select

from supportdesk.db import Database
from supportdesk.db.answers import as_text
from supportdesk.db.direct import Compiled
from supportdesk.domain.answers.objects import TABLES, Children, connection_json, object_json
from supportdesk.domain.answers.selection import Given, Picked, argument_name
from supportdesk.domain.issues import queries as issue_queries
from supportdesk.domain.issues.models import IssueFilter, IssueOrder
from supportdesk.domain.pagination import PageRequest

# Root field -> (type, the column its argument is matched with, the argument).
SINGLE_ROOTS: dict[str, tuple[str, str, str]] = {
    "issue": ("Issue", "id", "id"),
    "issueByNumber": ("Issue", "ticket_number", "ticketNumber"),
    "contact": ("Contact", "id", "id"),
    "account": ("Account", "id", "id"),
    "article": ("Article", "id", "id"),
}


def single_statement(root: str, picked: Picked, given: Given) -> Select[Any]:
    """One object by its id (or ticket number), bound as the root field's argument, in
    the bound `workspace_id`."""
    type_name, column, argument = SINGLE_ROOTS[root]
    row = TABLES[type_name].alias("root")
    return select(as_text(object_json(type_name, picked.only(), row, given))).where(
        row.c.workspace_id == bindparam("workspace_id"),
        row.c[column] == bindparam(argument_name(picked.number, argument)),
    )


# The orders whose cursors hold an issue's id (update order holds more, relevance a score).
ID_ORDERS = frozenset({IssueOrder.CREATED_ASC, IssueOrder.CREATED_DESC})


def issue_list_statement(
    picked: Picked,
    given: Given,
    workspace_id: str,
    page: PageRequest,
    where: IssueFilter,
    order: IssueOrder | None,
) -> Select[Any] | None:
    """One page of the issue list, read exactly as `issues.list_issues` reads it; None for
    an order whose cursors are not ids."""
    order = issue_queries.list_order(where, order)
    if order not in ID_ORDERS:
        return None
    rows = issue_queries.list_statement(workspace_id, page, where, order)
    total = issue_queries.count_statement(workspace_id, where).scalar_subquery()
    children = Children(
        "Issue", rows, total, descending=order is IssueOrder.CREATED_DESC, paged=True
    )
    return select(as_text(connection_json(picked, children, None, given)))


class SingleAnswer:
    """A single-object root field of one plan: its statement compiled once per set of
    given arguments, run straight on the driver."""

    def __init__(self, root: str, picked: Picked) -> None:
        self.root = root
        self.picked = picked
        self._compiled: dict[tuple[str, Given], Compiled] = {}

    async def run(self, db: Database, given: Given, parameters: dict[str, Any]) -> str | None:
        key = (db.dialect, given)
        compiled = self._compiled.get(key)
        if compiled is None:
            compiled = db.compile(single_statement(self.root, self.picked, given))
            if len(self._compiled) < _SHAPES_KEPT:
                self._compiled[key] = compiled
        rows = await db.fetch_compiled(compiled, **parameters)
        return rows[0][0] if rows else None


# Sets of given arguments kept per root field (each a compiled statement).
_SHAPES_KEPT = 16


async def answer_issue_list(
    db: Database,
    picked: Picked,
    given: Given,
    parameters: dict[str, Any],
    workspace_id: str,
    page: PageRequest,
    where: IssueFilter,
    order: IssueOrder | None,
) -> str | None:
    """The JSON of a page of the issue list; None when this list does not compile (its
    order's cursors are not ids). Raises InvalidArgument as `list_issues` does."""
    statement = issue_list_statement(picked, given, workspace_id, page, where, order)
    if statement is None:
        return None
    async with db.read() as connection:
        found: str | None = await connection.scalar(statement, parameters)
    return found
