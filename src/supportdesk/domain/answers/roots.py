"""The statements of compiled root fields: one statement per root field, whose single
row and column is the field's JSON as text (or no row, or null, when there is nothing)."""

from __future__ import annotations

import logging
from typing import Any

from sqlalchemy import Select, bindparam, select
from sqlalchemy.exc import DBAPIError

from supportdesk.db import Database
from supportdesk.db.answers import as_text
from supportdesk.db.direct import Compiled
from supportdesk.domain.accounts import queries as account_queries
from supportdesk.domain.accounts.models import AccountFilter
from supportdesk.domain.answers.objects import TABLES, Children, connection_json, object_json
from supportdesk.domain.answers.selection import Given, Picked, argument_name
from supportdesk.domain.articles import queries as article_queries
from supportdesk.domain.articles.models import ArticleFilter
from supportdesk.domain.contacts import queries as contact_queries
from supportdesk.domain.issues import queries as issue_queries
from supportdesk.domain.issues.models import IssueFilter, IssueOrder
from supportdesk.domain.pagination import PageRequest

logger = logging.getLogger("supportdesk.answers")

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
        try:
            rows = await db.fetch_compiled(compiled, **parameters)
        except DBAPIError as error:
            return _refused(error)
        return rows[0][0] if rows else None


# Sets of given arguments kept per root field (each a compiled statement).
_SHAPES_KEPT = 16


async def _first_value(
    db: Database, statement: Select[Any], parameters: dict[str, Any]
) -> str | None:
    try:
        async with db.read() as connection:
            found: str | None = await connection.scalar(statement, parameters)
    except DBAPIError as error:
        return _refused(error)
    return found


def _refused(error: DBAPIError) -> str | None:
    """A statement the database will not run (SQLite's parser has a fixed depth, say):
    the executor answers instead. Logged: below the plans' depth bound it should not be."""
    logger.warning("compiled answer refused by the database: %s", type(error.orig).__name__)
    return None  # the executor's turn


def _list_answer(
    picked: Picked,
    given: Given,
    type_name: str,
    rows: Select[Any],
    count: Select[Any],
    descending: bool = False,
) -> Select[Any]:
    children = Children(type_name, rows, count.scalar_subquery(), descending, paged=True)
    return select(as_text(connection_json(picked, children, None, given)))


async def answer_contact_list(
    db: Database,
    picked: Picked,
    given: Given,
    parameters: dict[str, Any],
    workspace_id: str,
    page: PageRequest,
    where: contact_queries.ContactFilter,
) -> str | None:
    """The JSON of a page of the contact list, read as `list_contacts` reads it."""
    rows = contact_queries.page_statement(workspace_id, page, where)
    count = contact_queries.count_statement(workspace_id, where)
    return await _first_value(db, _list_answer(picked, given, "Contact", rows, count), parameters)


async def answer_account_list(
    db: Database,
    picked: Picked,
    given: Given,
    parameters: dict[str, Any],
    workspace_id: str,
    page: PageRequest,
    where: AccountFilter,
) -> str | None:
    """The JSON of a page of the account list, read as `list_accounts` reads it."""
    rows = account_queries.page_statement(workspace_id, page, where)
    count = account_queries.count_statement(workspace_id, where)
    return await _first_value(db, _list_answer(picked, given, "Account", rows, count), parameters)


async def answer_article_list(
    db: Database,
    picked: Picked,
    given: Given,
    parameters: dict[str, Any],
    workspace_id: str,
    page: PageRequest,
    where: ArticleFilter,
) -> str | None:
    """The JSON of a page of the article list, read as `list_articles` reads it; None for
    a search (its cursors hold a relevance)."""
    if article_queries.is_search(where):
        return None
    rows = article_queries.page_statement(workspace_id, page, where)
    count = article_queries.count_statement(workspace_id, where)
    return await _first_value(db, _list_answer(picked, given, "Article", rows, count), parameters)


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
    return await _first_value(db, statement, parameters)
