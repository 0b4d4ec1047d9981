"""Relay cursor connections (docs/api.md)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Generic, Protocol, TypeVar

import strawberry

from supportdesk.domain.pagination import Cursors, Page

NodeT = TypeVar("NodeT")
ItemT = TypeVar("ItemT", bound="HasId")


class HasId(Protocol):
    @property
    def id(self) -> str: ...


@strawberry.type
class PageInfo:
    has_next_page: bool
    end_cursor: str | None
    has_previous_page: bool = False
    start_cursor: str | None = None


@strawberry.type
class Edge(Generic[NodeT]):
    cursor: str
    node: NodeT


@strawberry.type
class Connection(Generic[NodeT]):
    edges: list[Edge[NodeT]]
    page_info: PageInfo
    count: strawberry.Private[Callable[[], Awaitable[int]]]

    @strawberry.field(description="How many items the whole list holds, across pages.")
    async def total_count(self) -> int:
        return await self.count()


def connection_of(
    cursors: Cursors,
    page: Page[ItemT],
    nodes: Sequence[NodeT],
    count: Callable[[], Awaitable[int]],
    cursor_key: Callable[[ItemT], str] | None = None,
) -> Connection[NodeT]:
    """Edges for `nodes` (the page's items, converted); each cursor holds its item's id,
    or `cursor_key(item)` for lists in another order (search by relevance)."""
    edges = [
        Edge(cursor=cursors.encode(cursor_key(item) if cursor_key else item.id), node=node)
        for item, node in zip(page.items, nodes, strict=True)
    ]
    return Connection(
        edges=edges,
        page_info=PageInfo(
            has_next_page=page.has_next,
            end_cursor=edges[-1].cursor if edges else None,
            start_cursor=edges[0].cursor if edges else None,
        ),
        count=count,
    )
