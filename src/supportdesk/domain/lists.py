"""A list's two statements (one page, and the count) and the values they run with.

What a list's SQL holds depends on the request's shape: which filters it sets, whether it
continues after a cursor, its order. The values (the workspace, each filter's value, the
cursor's position, the page size) are bound by name. Building a Select and computing its
cache key for every request cost more of the server's CPU than the database spent on a page
of 50 issues, so the statements are built once per shape and kept; a request only works
out its shape and its values. The executor runs them on a transaction's connection and a
compiled answer wraps them (db/answer_sql.py): both read the same statements.

The page's size is part of the shape and written into the SQL (`page_limit`), not bound:
PostgreSQL plans a prepared statement whose LIMIT is bound again at every execution (its
generic plan reckons on a tenth of the rows, so it never looks cheaper than a custom one),
which cost the database about a fifth of its time on a page of 50 issues. With the LIMIT
written in, and the workspace out of the planner's sight (`workspace_condition`), it keeps
one generic plan. Clients ask for few page sizes.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Hashable, Sequence
from typing import Any

from sqlalchemy import (
    ColumnElement,
    FromClause,
    Integer,
    Select,
    bindparam,
    func,
    literal_column,
    select,
)

from supportdesk.db import Database
from supportdesk.db.kept import Kept
from supportdesk.domain.pagination import PageRequest

AFTER = "list_after"


class ListQuery:
    """One page of a list (`first + 1` rows, ordered) and its count, with their values.
    `shape` names the statements: None when they are built for this request alone (a
    search, whose SQL holds its words), which a compiled answer does not take; those are
    built when first read, so a caller that reads one pays for one."""

    __slots__ = ("_count", "_rows", "shape", "values")

    def __init__(
        self,
        rows: Callable[[], Select[Any]],
        count: Callable[[], Select[Any]],
        values: dict[str, Any],
        shape: Hashable | None = None,
    ) -> None:
        self._rows: Select[Any] | Callable[[], Select[Any]] = rows
        self._count: Select[Any] | Callable[[], Select[Any]] = count
        self.values = values
        self.shape = shape

    @property
    def rows(self) -> Select[Any]:
        if not isinstance(self._rows, Select):
            self._rows = self._rows()
        return self._rows

    @property
    def count(self) -> Select[Any]:
        if not isinstance(self._count, Select):
            self._count = self._count()
        return self._count


async def count_of(db: Database, query: ListQuery) -> int:
    """How many rows the list's filter matches, on a read connection of its own."""
    async with db.read() as connection:
        return int(await connection.scalar(query.count, query.values) or 0)


def workspace_condition(column: ColumnElement[str]) -> ColumnElement[bool]:
    """`column` equal to the bound `workspace_id`, given as a sub-select whose value the
    planner does not look at. A list's best plan is the same for every workspace (its index
    in order, up to the page's size), but PostgreSQL, finding a large workspace's id among
    its statistics, reckons a plan made for that id cheaper than the generic one and plans
    again at every execution. Unseen, every id costs what the generic plan does."""
    return column == select(bindparam("workspace_id", type_=column.type)).scalar_subquery()


def page_limit(page: PageRequest) -> ColumnElement[int]:
    """The page's size and the one row that says whether there is more, as a literal of
    the statement (see above)."""
    return literal_column(str(int(page.first) + 1), Integer())


class CreationOrder:
    """A list of one table in creation (id) order whose filter `filtered` adds to a
    statement by the names of the values given: its statements kept per shape."""

    def __init__(
        self,
        table: FromClause,
        columns: Sequence[ColumnElement[Any]],
        filtered: Callable[[Select[Any], Collection[str]], Select[Any]],
    ) -> None:
        self._table = table
        self._columns = columns
        self._filtered = filtered
        self._shapes: Kept[Hashable, tuple[Select[Any], Select[Any]]] = Kept(64)

    def query(self, page: PageRequest, values: dict[str, Any]) -> ListQuery:
        """The page after `page.after` (plus one row) and the count, for these values."""
        counted = tuple(values)
        if page.after:
            values[AFTER] = page.after
        shape = (tuple(values), counted, page.first)
        rows, count = self._shapes.get(shape, lambda: self._statements(page, *shape[:2]))
        return ListQuery(lambda: rows, lambda: count, values, shape)

    def _statements(
        self, page: PageRequest, paged: tuple[str, ...], counted: tuple[str, ...]
    ) -> tuple[Select[Any], Select[Any]]:
        id_column = self._table.c.id
        rows = self._filtered(select(*self._columns), paged)
        if AFTER in paged:
            rows = rows.where(id_column > bindparam(AFTER))
        count = self._filtered(select(func.count()).select_from(self._table), counted)
        return rows.order_by(id_column).limit(page_limit(page)), count
