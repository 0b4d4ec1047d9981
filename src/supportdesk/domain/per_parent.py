"""Batch reads for DataLoaders: rows by id, and pages and counts of child rows for many
parents at once; one statement each, built once, whatever the number of ids or the page
size."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar

from sqlalchemy import (
    BindParameter,
    ColumnElement,
    FromClause,
    Select,
    bindparam,
    func,
    select,
)

from supportdesk.db import Database
from supportdesk.db.reads import Read, in_ids, positional
from supportdesk.domain.pagination import Page, PageRequest, page_of

T = TypeVar("T")


def in_workspace(
    table: FromClause, narrowed_by: ColumnElement[Any] | None = None
) -> list[ColumnElement[bool]]:
    """The conditions of a batch read's children: the workspace's rows of `table` (bound
    as `workspace_id`), and with `narrowed_by`, those whose column equals the parameter
    of its name (a status, a visibility)."""
    conditions = [table.c.workspace_id == bindparam("workspace_id")]
    if narrowed_by is not None:
        conditions.append(narrowed_by == bindparam(narrowed_by.name))
    return conditions


# Extra columns of the numbered rows (named so they cannot clash with a child's own).
_PARENT = "parent_of_row"
_POSITION = "position_in_parent"


def numbered_pages(
    query: Select[Any],
    parent: ColumnElement[Any],
    order: ColumnElement[Any],
    *,
    after: bool,
    newest_first: bool = False,
) -> Select[Any]:
    """The statement behind `ChildPages`, built once by callers that keep it: children
    of the parents bound as `parent_ids`, numbered per parent, at most `limit` each, past the
    bound `after` when `after`. Rows: `query`'s columns, then the parent, then the position."""
    conditions: list[ColumnElement[bool]] = [in_ids(parent, "parent_ids")]
    if after:
        cursor: BindParameter[Any] = bindparam("after")
        conditions.append(order < cursor if newest_first else order > cursor)
    position = func.row_number().over(
        partition_by=parent, order_by=order.desc() if newest_first else order
    )
    ranked = (
        query.add_columns(parent.label(_PARENT), position.label(_POSITION))
        .where(*conditions)
        .subquery()
    )
    return (
        select(ranked)
        .where(ranked.c[_POSITION] <= bindparam("limit"))
        .order_by(ranked.c[_PARENT], ranked.c[_POSITION])
    )


def page_parameters(parent_ids: Sequence[str], page: PageRequest, **more: Any) -> dict[str, Any]:
    """The parameters of a `numbered_pages` statement for this page of each parent."""
    parameters = {"parent_ids": list(parent_ids), "limit": page.first + 1, **more}
    if page.after:
        parameters["after"] = page.after
    return parameters


class ById(Generic[T]):
    """A workspace's rows of one table by id: `columns` are the table's, in the model's
    field order, starting with `id`."""

    def __init__(self, columns: Sequence[ColumnElement[Any]], model: Callable[..., T]) -> None:
        table = columns[0].table
        query = select(*columns).where(
            table.c.workspace_id == bindparam("workspace_id"), in_ids(table.c.id, "ids")
        )
        self._read = Read(query, positional(model, columns))

    async def fetch(self, db: Database, workspace_id: str, ids: Sequence[str]) -> dict[str, T]:
        found = await db.fetch(self._read, workspace_id=workspace_id, ids=list(ids))
        return {row.id: row for row in found}  # type: ignore[attr-defined]


class ChildPages(Generic[T]):
    """The same page of each parent's children, ordered by `order` (an id: creation order),
    or the other way round with `newest_first`: one statement built once (one without a
    cursor, one past it) and run on the driver, whatever the number of parents.

    `query` selects the children's columns (its conditions bound parameters only, e.g. the
    workspace); `of` makes a child from those columns."""

    def __init__(
        self,
        query: Select[Any],
        parent: ColumnElement[Any],
        order: ColumnElement[Any],
        of: Callable[[Sequence[Any]], T],
        *,
        newest_first: bool = False,
    ) -> None:
        width = len(query.selected_columns)

        def child(row: Sequence[Any]) -> tuple[str, T]:
            return str(row[width]), of(row[:width])

        self._reads = {
            after: Read(
                numbered_pages(query, parent, order, after=after, newest_first=newest_first),
                child,
            )
            for after in (False, True)
        }

    async def fetch(
        self, db: Database, parent_ids: Sequence[str], page: PageRequest, **parameters: Any
    ) -> dict[str, Page[T]]:
        read = self._reads[bool(page.after)]
        found = await db.fetch(read, **page_parameters(parent_ids, page, **parameters))
        grouped: dict[str, list[T]] = defaultdict(list)
        for parent_id, child in found:
            grouped[parent_id].append(child)
        return {p: page_of(grouped.get(p, []), page.first) for p in parent_ids}


class ChildCounts:
    """How many children each parent has (0 for none): one grouped statement, built once."""

    def __init__(
        self, source: FromClause, parent: ColumnElement[Any], *conditions: ColumnElement[bool]
    ) -> None:
        query = (
            select(parent, func.count())
            .select_from(source)
            .where(in_ids(parent, "parent_ids"), *conditions)
            .group_by(parent)
        )
        self._read = Read(query, tuple)

    async def fetch(
        self, db: Database, parent_ids: Sequence[str], **parameters: Any
    ) -> dict[str, int]:
        found = await db.fetch(self._read, parent_ids=list(parent_ids), **parameters)
        counts = {str(row[0]): int(row[1]) for row in found}
        return {parent_id: counts.get(parent_id, 0) for parent_id in parent_ids}
