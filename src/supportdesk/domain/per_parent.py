"""Pages and counts of child rows for many parents at once (DataLoader batches): one
statement each, whatever the number of parents or the page size."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from sqlalchemy import (
    BindParameter,
    ColumnElement,
    FromClause,
    RowMapping,
    Select,
    bindparam,
    func,
    select,
)
from sqlalchemy.ext.asyncio import AsyncConnection

from supportdesk.db.reads import in_ids
from supportdesk.domain.pagination import Page, PageRequest, page_of

T = TypeVar("T")

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
    """The statement behind `pages_per_parent`, built once by callers that keep it: children
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


async def pages_per_parent(
    connection: AsyncConnection,
    query: Select[Any],
    parent: ColumnElement[Any],
    order: ColumnElement[Any],
    parent_ids: Sequence[str],
    page: PageRequest,
    newest_first: bool = False,
) -> dict[str, Page[RowMapping]]:
    """The same page of each parent's children, ordered by `order` (an id: creation order),
    or the other way round with `newest_first`.

    `query` selects the children's columns with the workspace condition applied; rows are
    numbered per parent with a window function, so one statement serves every parent.
    """
    statement = numbered_pages(
        query, parent, order, after=bool(page.after), newest_first=newest_first
    )
    rows = await connection.execute(statement, page_parameters(parent_ids, page))
    grouped: dict[str, list[RowMapping]] = defaultdict(list)
    for row in rows.mappings():
        grouped[row[_PARENT]].append(row)
    return {parent_id: page_of(grouped.get(parent_id, []), page.first) for parent_id in parent_ids}


def mapped_pages(
    pages: dict[str, Page[RowMapping]], of: Callable[[RowMapping], T]
) -> dict[str, Page[T]]:
    """Each parent's page of rows as a page of models."""
    return {
        parent: Page([of(row) for row in page.items], page.has_next)
        for parent, page in pages.items()
    }


async def counts_per_parent(
    connection: AsyncConnection,
    source: FromClause,
    parent: ColumnElement[Any],
    parent_ids: Sequence[str],
    *conditions: ColumnElement[bool],
) -> dict[str, int]:
    """How many children each parent has (0 for none), in one grouped statement."""
    query = (
        select(parent, func.count())
        .select_from(source)
        .where(in_ids(parent, "parent_ids"), *conditions)
        .group_by(parent)
    )
    result = await connection.execute(query, {"parent_ids": list(parent_ids)})
    counts = {str(row[0]): int(row[1]) for row in result}
    return {parent_id: counts.get(parent_id, 0) for parent_id in parent_ids}
