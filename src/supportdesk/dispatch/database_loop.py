"""Where a dispatcher's database work runs.

A `Database` belongs to the event loop that opened its connections. A dispatcher running on
a loop of its own (thread.py) hands each piece of its database work (reading endpoints,
claiming a batch, writing a batch of outcomes, retention) to that loop and awaits the
answer; a dispatcher on the database's own loop simply awaits it."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any, ParamSpec, TypeVar

T = TypeVar("T")
P = ParamSpec("P")


class DatabaseLoop:
    """`await run(work, *arguments)`: the coroutine `work(*arguments)` (using the database)
    run on `loop`, the loop of the database's connections; on the running loop when `loop`
    is None or is that one. The coroutine is made there: one cancelled before it starts is
    never made, rather than left never awaited."""

    def __init__(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        self._loop = loop
        self._running: set[asyncio.Task[Any]] = set()  # on `loop`: work handed to it

    async def run(
        self, work: Callable[P, Coroutine[Any, Any, T]], *args: P.args, **kwargs: P.kwargs
    ) -> T:
        loop = self._loop
        if loop is None or loop is asyncio.get_running_loop():
            return await work(*args, **kwargs)
        # Cancelling the wait cancels the work there too, without waiting for it (`settle`).
        handed = asyncio.run_coroutine_threadsafe(self._tracked(work, *args, **kwargs), loop)
        return await asyncio.wrap_future(handed)

    async def _tracked(
        self, work: Callable[P, Coroutine[Any, Any, T]], *args: P.args, **kwargs: P.kwargs
    ) -> T:
        task = asyncio.current_task()
        assert task is not None
        self._running.add(task)
        try:
            return await work(*args, **kwargs)
        finally:
            self._running.discard(task)

    async def settle(self, within: float) -> None:
        """On the database's loop: wait up to `within` seconds until the work handed to it
        has ended (a transaction cancelled with its waiter has rolled back), before the
        database is closed."""
        if self._running:
            await asyncio.wait(set(self._running), timeout=within)
