"""Walking a Relay connection page by page (docs/api.md), for any of the generated
connection models."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from typing import Protocol, TypeVar

Node = TypeVar("Node", covariant=True)
T = TypeVar("T")

# The service answers at most 100 a page.
PAGE_SIZE = 100


class Edge(Protocol[Node]):
    @property
    def node(self) -> Node: ...


class PageInfo(Protocol):
    @property
    def has_next_page(self) -> bool: ...

    @property
    def end_cursor(self) -> str | None: ...


class Connection(Protocol[Node]):
    @property
    def edges(self) -> Sequence[Edge[Node]]: ...

    @property
    def page_info(self) -> PageInfo: ...


def walk(fetch: Callable[[str | None], Connection[T] | None]) -> Iterator[T]:
    """Every node, asking `fetch(after)` for one page after another."""
    after: str | None = None
    while (page := fetch(after)) is not None:
        yield from (edge.node for edge in page.edges)
        if _last(page):
            return
        after = page.page_info.end_cursor


async def walk_async(
    fetch: Callable[[str | None], Awaitable[Connection[T] | None]],
) -> AsyncIterator[T]:
    after: str | None = None
    while (page := await fetch(after)) is not None:
        for edge in page.edges:
            yield edge.node
        if _last(page):
            return
        after = page.page_info.end_cursor


def _last(page: Connection[T]) -> bool:
    # A page without edges has no cursor to go on from: with `first: 0` the service answers
    # none and still says there are more, and asking again would never end.
    info = page.page_info
    return not info.has_next_page or not page.edges or info.end_cursor is None
