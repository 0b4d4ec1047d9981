"""Where a dispatcher's database work runs.

A `Database` belongs to the event loop that opened its connections. A dispatcher running on
a loop of its own (thread.py) hands each piece of its database work (reading endpoints,
claiming a batch, writing a batch of outcomes, retention) to that loop and awaits the
answer; a dispatcher on the database's own loop simply awaits it."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


class DatabaseLoop:
    """`await run(work)`: `work` (a coroutine using the database) run on `loop`, the loop of
    the database's connections; on the running loop when `loop` is None or is that one."""

    def __init__(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        self._loop = loop

    async def run(self, work: Coroutine[Any, Any, T]) -> T:
        loop = self._loop
        if loop is None or loop is asyncio.get_running_loop():
            return await work
        # Cancelling the wait cancels the work there too.
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(work, loop))
