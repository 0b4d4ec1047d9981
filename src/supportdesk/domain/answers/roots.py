"""The statements of compiled root fields: one statement per root field, whose single
row and column is the field's JSON as text (null when there is nothing). Each statement
also checks that the key asking is still active (`still_active`): no row when it is not,
so a request answered for a key the process remembers needs no statement of its own to
authenticate."""

from __future__ import annotations

import logging
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Select, bindparam, select
from sqlalchemy.exc import DBAPIError

from supportdesk.auth.authenticate import still_active
from supportdesk.db import Database
from supportdesk.db.answers import as_text, too_deep
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
from supportdesk.domain.lists import Kept, ListQuery
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
    found = select(as_text(object_json(type_name, picked.only(), row, given))).where(
        row.c.workspace_id == bindparam("workspace_id"),
        row.c[column] == bindparam(argument_name(picked.number, argument)),
    )
    return still_active(found)


# The list root fields a compiled answer covers (each read as its resolver reads it).
LIST_ROOTS = ("issues", "contacts", "accounts", "articles")

# The orders whose cursors hold an issue's id (update order holds more, relevance a score).
ID_ORDERS = frozenset({IssueOrder.CREATED_ASC, IssueOrder.CREATED_DESC})


# Compiled statements of every plan, by what decides their SQL: the dialect, the picked
# fields (a document sent with keys of other scopes makes a plan of its own and the same
# statements) and the shape of the arguments.
_KEPT: Kept[Hashable, Any] = Kept(512)


class SingleAnswer:
    """A single-object root field of one plan: its statement compiled once per set of
    given arguments, run straight on the driver."""

    def __init__(self, root: str, picked: Picked) -> None:
        self.root = root
        self.picked = picked
        self._fields = repr(picked)  # the picks, numbers and all: what the SQL is made of

    async def run(self, db: Database, given: Given, parameters: dict[str, Any]) -> str | None:
        compiled: Compiled = _KEPT.get(
            (db.dialect, self.root, self._fields, given),
            lambda: db.compile(single_statement(self.root, self.picked, given)),
        )
        try:
            rows = await db.fetch_compiled(compiled, **parameters)
        except DBAPIError as error:
            return _refused(error)
        return _answer_of(rows)


@dataclass(frozen=True, slots=True)
class ListRead:
    """A page of a root list as its executor resolver reads it (the very statements and
    values), the type of its rows and the page's order."""

    type_name: str
    query: ListQuery
    descending: bool = False


class ListAnswer:
    """A list root field of one plan. Its page and count are the executor's own, kept per
    shape of the list (domain/lists.py); the statement around them is compiled once per
    shape and given arguments, and run straight on the driver with the list's values."""

    def __init__(self, picked: Picked) -> None:
        self.picked = picked
        self._fields = repr(picked)

    async def run(
        self, db: Database, given: Given, parameters: dict[str, Any], read: ListRead
    ) -> str | None:
        shape = read.query.shape
        if shape is None:
            return None
        key = (db.dialect, self._fields, given, read.type_name, read.descending, shape)
        compiled = _KEPT.get(key, lambda: self._compile(db, given, read))
        try:
            found = await db.fetch_compiled(compiled, **{**parameters, **read.query.values})
        except DBAPIError as error:
            return _refused(error)
        return _answer_of(found)

    def _compile(self, db: Database, given: Given, read: ListRead) -> Compiled:
        query = read.query
        children = Children(
            read.type_name, query.rows, query.count.scalar_subquery(), read.descending, paged=True
        )
        return db.compile(
            still_active(select(as_text(connection_json(self.picked, children, None, given))))
        )


def issue_list(
    workspace_id: str, page: PageRequest, where: IssueFilter, order: IssueOrder | None
) -> ListRead | None:
    """The issue list as `issues.list_issues` reads it; None for an order whose cursors
    are not ids. Raises InvalidArgument as `list_issues` does."""
    order = issue_queries.list_order(where, order)
    if order not in ID_ORDERS:
        return None
    return ListRead(
        "Issue",
        issue_queries.list_query(workspace_id, page, where, order),
        descending=order is IssueOrder.CREATED_DESC,
    )


def contact_list(
    workspace_id: str, page: PageRequest, where: contact_queries.ContactFilter
) -> ListRead:
    return ListRead("Contact", contact_queries.list_query(workspace_id, page, where))


def account_list(workspace_id: str, page: PageRequest, where: AccountFilter) -> ListRead:
    return ListRead("Account", account_queries.list_query(workspace_id, page, where))


def article_list(workspace_id: str, page: PageRequest, where: ArticleFilter) -> ListRead:
    """A search's statements hold its words: `run` leaves it to the executor."""
    return ListRead("Article", article_queries.list_query(workspace_id, page, where))


class KeyNoLongerActive(Exception):
    """The key asking was revoked or expired (or is gone) when the statement ran."""


def _answer_of(rows: list[tuple[Any, ...]]) -> str | None:
    if not rows:
        raise KeyNoLongerActive
    answer: str | None = rows[0][0]
    return answer


class AnswerTooDeep(Exception):
    """The database refused the statement for how deeply it nests (SQLite's parser has a
    fixed depth): the executor answers, and the plan no longer tries."""


def _refused(error: DBAPIError) -> str | None:
    if too_deep(error):
        logger.info("compiled answer nested past the database's depth: the executor answers")
        raise AnswerTooDeep from error
    raise error
