"""The PostgreSQL connections of one worker: asyncpg connections, at most `size`, handed out
and taken back without a task or a timer.

asyncpg's own `Pool` releases a connection in a task of its own (`asyncio.shield`), under a
time-out context, and wraps it in a proxy: three event-loop turns and about 105,000
instructions per request, a tenth of `issue` (docs/performance.md, "The pool"). Here a
connection given back sound goes straight to a waiting reader or to the idle list; one that
is not (closed, inside a transaction, or given back by a block that failed, perhaps
mid-statement) is closed, and its place goes to the next reader, which opens a new one.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable

import asyncpg


class PostgresPool:
    def __init__(
        self, dsn: str, size: int, init: Callable[[asyncpg.Connection], Awaitable[None]]
    ) -> None:
        self._dsn = dsn
        self.size = size
        self._init = init
        self._idle: list[asyncpg.Connection] = []
        # Connections open or being opened: at most `size`.
        self._places = 0
        # Readers waiting for a place: each is handed a connection, or None to open one.
        self._waiting: deque[asyncio.Future[asyncpg.Connection | None]] = deque()
        self._closing = False

    async def acquire(self) -> asyncpg.Connection:
        while self._idle:
            connection = self._idle.pop()
            if not connection.is_closed():
                return connection
            self._places -= 1
        if self._places < self.size:
            self._places += 1
            return await self._opened()
        handed = await self._wait()
        # None: a place came free (a connection was closed), in which to open one.
        return handed if handed is not None else await self._opened()

    async def _opened(self) -> asyncpg.Connection:
        """A new connection in a place already taken for it."""
        try:
            connection = await asyncpg.connect(self._dsn)
            try:
                await self._init(connection)
            except BaseException:
                connection.terminate()
                raise
        except BaseException:
            self._free_place()
            raise
        return connection

    async def _wait(self) -> asyncpg.Connection | None:
        waiter: asyncio.Future[asyncpg.Connection | None] = (
            asyncio.get_running_loop().create_future()
        )
        self._waiting.append(waiter)
        try:
            return await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                # Handed a connection (or a place) as the wait was cancelled: pass it on.
                handed = waiter.result()
                if handed is None:
                    self._free_place()
                else:
                    self.release(handed)
            raise

    def release(self, connection: asyncpg.Connection, *, sound: bool = True) -> None:
        """Takes a connection back; `sound=False` when the block that used it failed, so
        that a statement cut off mid-way never reaches the next reader."""
        if not sound or self._closing or connection.is_closed() or connection.is_in_transaction():
            connection.terminate()
            self._free_place()
            return
        while self._waiting:
            waiter = self._waiting.popleft()
            if not waiter.done():
                waiter.set_result(connection)
                return
        self._idle.append(connection)

    def _free_place(self) -> None:
        """A place given up: the first reader waiting opens a connection in it."""
        self._places -= 1
        while self._waiting:
            waiter = self._waiting.popleft()
            if not waiter.done():
                self._places += 1
                waiter.set_result(None)
                return

    async def close(self) -> None:
        """Closes the idle connections now, and each one in use as it comes back."""
        self._closing = True
        idle, self._idle = self._idle, []
        for connection in idle:
            self._places -= 1
            await connection.close()
