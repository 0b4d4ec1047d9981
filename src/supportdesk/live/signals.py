"""Telling the other processes that events were committed, so that their tailers look at
the log at once: Redis pub/sub when Redis is configured, otherwise PostgreSQL's
LISTEN/NOTIFY; SQLite without Redis has none, and its tailers poll.

A signal is only a wake-up and carries nothing: the log stays the source of truth, and a
signal lost costs the readers one poll interval. A process sends at most one at a time;
commits made while one is on its way are told by the next."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
from collections.abc import Callable
from typing import Any, Protocol

import asyncpg
from redis.asyncio import Redis
from sqlalchemy.engine import make_url

logger = logging.getLogger("supportdesk.live")

CHANNEL = "supportdesk_events_committed"
RETRY_SECONDS = 1.0


class Signals(Protocol):
    def committed(self) -> None:
        """Events may have been committed here: tell the other processes (without waiting)."""

    async def listen(self, wake: Callable[[], None]) -> None:
        """Calls `wake()` on every other process's signal, until cancelled."""

    async def close(self) -> None: ...


class NoSignals:
    def committed(self) -> None:
        pass

    async def listen(self, wake: Callable[[], None]) -> None:
        await asyncio.Event().wait()

    async def close(self) -> None:
        pass


class _Sender:
    """Sends one signal at a time; commits made meanwhile are told by the next one."""

    def __init__(self, send: Callable[[], Any]) -> None:
        self._send = send
        self._pending = False
        self._task: asyncio.Task[None] | None = None

    def committed(self) -> None:
        self._pending = True
        if self._task is None or self._task.done():
            # Not the committing request's context (its deadline): the signal outlives it.
            self._task = asyncio.create_task(self._drain(), context=contextvars.Context())

    async def _drain(self) -> None:
        while self._pending:
            self._pending = False
            try:
                await self._send()
            except Exception as error:  # the others poll meanwhile
                logger.warning("could not signal new events: %s", type(error).__name__)

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task


class RedisSignals:
    def __init__(self, url: str) -> None:
        self._redis: Redis = Redis.from_url(url)
        self._sender = _Sender(lambda: self._redis.publish(CHANNEL, b""))

    def committed(self) -> None:
        self._sender.committed()

    async def listen(self, wake: Callable[[], None]) -> None:
        lost = False  # said once an outage, not at every retry
        while True:
            try:
                async with self._redis.pubsub() as pubsub:
                    await pubsub.subscribe(CHANNEL)
                    if lost:
                        logger.warning("Redis signals are back")
                        lost = False
                    async for message in pubsub.listen():
                        if message.get("type") == "message":
                            wake()
            except Exception as error:
                if not lost:
                    logger.warning("Redis signals lost (%s); retrying", type(error).__name__)
                lost = True
                wake()  # what the lost signals said
                await asyncio.sleep(RETRY_SECONDS)

    async def close(self) -> None:
        await self._sender.close()
        await self._redis.aclose()


class PostgresSignals:
    """NOTIFY from a connection of its own, after the commit and outside any transaction:
    sent inside the writers' transactions, it would serialise their commits."""

    def __init__(self, database_url: str) -> None:
        self._dsn = make_url(database_url).set(drivername="postgresql").render_as_string(False)
        self._sending: asyncpg.Connection | None = None
        self._sender = _Sender(self._notify)

    def committed(self) -> None:
        self._sender.committed()

    async def _notify(self) -> None:
        if self._sending is None or self._sending.is_closed():
            self._sending = await asyncpg.connect(self._dsn)
        await self._sending.execute("SELECT pg_notify($1, '')", CHANNEL)

    async def listen(self, wake: Callable[[], None]) -> None:
        while True:
            try:
                connection = await asyncpg.connect(self._dsn)
            except Exception as error:
                logger.warning("cannot LISTEN for new events (%s); retrying", type(error).__name__)
                await asyncio.sleep(RETRY_SECONDS)
                continue
            try:
                await self._listen_on(connection, wake)
            finally:
                await connection.close()

    @staticmethod
    async def _listen_on(connection: asyncpg.Connection, wake: Callable[[], None]) -> None:
        """Until the connection is lost; then what the lost signals said is assumed."""
        lost = asyncio.Event()
        connection.add_termination_listener(lambda _connection: lost.set())
        await connection.add_listener(CHANNEL, lambda *_: wake())
        await lost.wait()
        wake()

    async def close(self) -> None:
        await self._sender.close()
        if self._sending is not None:
            await self._sending.close()


def connections_of_signals(database_url: str, redis_url: str | None) -> int:
    """The database connections a process's signals hold: on PostgreSQL without Redis, one
    to LISTEN and one to NOTIFY."""
    return 2 if isinstance(signals_for(database_url, redis_url), PostgresSignals) else 0


def signals_for(database_url: str, redis_url: str | None) -> Signals:
    if redis_url:
        return RedisSignals(redis_url)
    if make_url(database_url).get_backend_name() == "postgresql":
        return PostgresSignals(database_url)
    return NoSignals()
