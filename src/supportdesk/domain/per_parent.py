"""Pages and counts of child rows for many parents at once (DataLoader batches): one
statement each, whatever the number of parents or the page size."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from sqlalchemy import ColumnElement, FromClause, RowMapping, Select, func, select
from sqlalchemy.ext.asyncio import AsyncConnection

from supportdesk.domain.pagination import Page, PageRequest, page_of

T = TypeVar("T")

# Extra columns of the numbered rows (named so they cannot clash with a child's own).
_PARENT = "parent_of_row"
_POSITION = "position_in_parent"


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
    conditions: list[ColumnElement[bool]] = [parent.in_(parent_ids)]
    if page.after:
        conditions.append(order < page.after if newest_first else order > page.after)
    position = func.row_number().over(
        partition_by=parent, order_by=order.desc() if newest_first else order
    )
    ranked = (
        query.add_columns(parent.label(_PARENT), position.label(_POSITION))
        .where(*conditions)
        .subquery()
    )
    rows = await connection.execute(
        select(ranked)
        .where(ranked.c[_POSITION] <= page.first + 1)
        .order_by(ranked.c[_PARENT], ranked.c[_POSITION])
    )
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
        .where(parent.in_(parent_ids), *conditions)
        .group_by(parent)
    )
    counts = {str(row[0]): int(row[1]) for row in await connection.execute(query)}
    return {parent_id: counts.get(parent_id, 0) for parent_id in parent_ids}
