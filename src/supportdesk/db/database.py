"""Engines and transactions.

SQLite allows one writer at a time: writes go through a one-connection engine whose
transactions start with BEGIN IMMEDIATE, so concurrent writers queue instead of failing
half-way, while reads use a pool of their own and see a WAL snapshot. Both run on the event
loop's thread (`connection.py`): the wait for a connection and for the write lock is an
asynchronous one, so the loop never blocks on either. PostgreSQL uses one pooled engine for
both.

Reads run in autocommit on both: each statement sees the latest committed state, and on
PostgreSQL a read is one round trip instead of three (BEGIN, the statement, ROLLBACK).
The hottest reads and writes skip SQLAlchemy's execution layer altogether: see `direct.py`.
"""

from __future__ import annotations

import asyncio
import itertools
import sqlite3
import threading
import time
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractContextManager, asynccontextmanager, nullcontext
from pathlib import Path
from typing import Any, Protocol, TypeVar, cast

from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from sqlalchemy.pool import QueuePool

from supportdesk.db import deadline
from supportdesk.db.answers import register_functions
from supportdesk.db.connection import Connection, InlineConnection, PooledConnection
from supportdesk.db.direct import Compiled, DirectReads, PostgresReader, ReadStatement, SqliteReader
from supportdesk.db.reads import Read

T = TypeVar("T")


class StatementSpans(Protocol):
    """A span per statement: SQLAlchemy's cursor events, or a block around a direct read."""

    def before(self, connection: Any, cursor: Any, statement: str, *rest: Any) -> None: ...
    def after(self, connection: Any, cursor: Any, statement: str, *rest: Any) -> None: ...
    def failed(self, context: Any) -> None: ...
    def around(self, statement: str) -> AbstractContextManager[object]: ...


SQLITE_PRAGMAS = (
    "PRAGMA journal_mode=WAL",
    "PRAGMA foreign_keys=ON",
    "PRAGMA busy_timeout=10000",
    "PRAGMA synchronous=NORMAL",
)


# How long a writer waits for another process's write lock before it gives up, as the
# readers' busy_timeout does; the writer waits asynchronously, a step at a time. The steps
# stay short: a try costs a few µs, and another process's writers chain their transactions
# with gaps of a loop's turn, which a writer that slept 20 ms between tries would rarely hit.
SQLITE_WRITE_WAIT = 10.0
BEGIN_WRITE = "BEGIN IMMEDIATE"
_WRITE_STEPS = (0.0005, 0.001, 0.002)


def _sqlite_engine(url: str, pool_size: int, begin: str | None) -> Engine:
    # pysqlite, not aiosqlite: the statements run on the calling thread (connection.py).
    engine = create_engine(
        make_url(url).set(drivername="sqlite+pysqlite"),
        poolclass=QueuePool,
        pool_size=pool_size,
        max_overflow=0,
        hide_parameters=True,
        connect_args={"check_same_thread": False},
    )

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Take transaction control away from the driver so BEGIN is ours to choose.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        for pragma in SQLITE_PRAGMAS:
            cursor.execute(pragma)
        dbapi_connection.set_progress_handler(deadline.progress, deadline.PROGRESS_STEPS)
        register_functions(dbapi_connection)
        if begin is not None:
            # BEGIN IMMEDIATE answers "locked" at once instead of blocking the event loop;
            # Database.transaction waits and tries again.
            cursor.execute("PRAGMA busy_timeout=0")
        cursor.close()

    if begin is not None:

        @event.listens_for(engine, "begin")
        def _on_begin(connection: Any) -> None:
            # Database.transaction begins on the driver's connection itself while it waits
            # for another process's lock; then SQLAlchemy only follows.
            if not connection.connection.driver_connection.in_transaction:
                connection.exec_driver_sql(begin)

    return engine


class _Turns(threading.local):
    """Per thread (so per event loop): SQLite's writer's lock and readers' slots, and
    PostgreSQL's turns of a workspace's writers. A connection is taken from its pool only
    once a turn is held, so the pool's own (blocking) wait is never reached."""

    def __init__(self, readers: int) -> None:
        self.write = asyncio.Lock()
        self.read = asyncio.Semaphore(readers)
        # PostgreSQL: a lock per workspace whose writers are waiting or writing.
        self.workspaces: dict[str, tuple[asyncio.Lock, int]] = {}

    @asynccontextmanager
    async def of_workspace(self, workspace_id: str) -> AsyncIterator[None]:
        lock, users = self.workspaces.get(workspace_id, (asyncio.Lock(), 0))
        self.workspaces[workspace_id] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self.workspaces[workspace_id]
            if users == 1:
                del self.workspaces[workspace_id]
            else:
                self.workspaces[workspace_id] = (lock, users - 1)


class Database:
    """The service's storage: a read path and a write path over one database."""

    def __init__(self, url: str, pool_size: int = 10) -> None:
        self.url = url
        self.dialect = make_url(url).get_backend_name()
        # The pools are sized from these very numbers, so the budget cannot drift from them.
        self.pool_limits = self.limits_of(url, pool_size)
        limits = self.pool_limits
        self.writer: Engine | AsyncEngine
        self.reader: Engine | AsyncEngine
        if self.is_sqlite:
            _ensure_sqlite_folder(url)
            self.writer = _sqlite_engine(url, limits["writer"], BEGIN_WRITE)
            # Reads run in autocommit: each statement sees the latest committed state.
            self.reader = _sqlite_engine(url, limits["reader"], None)
            self._turns = _Turns(limits["reader"])
            direct: PostgresReader | SqliteReader = SqliteReader(url, SQLITE_PRAGMAS)
        else:
            self.writer = create_async_engine(
                url,
                pool_size=pool_size,
                max_overflow=limits["shared"] - pool_size,
                pool_pre_ping=False,
                # Errors are logged: parameters may hold key hashes or customer data.
                hide_parameters=True,
            )
            # The same pool; only the connection's autocommit flag differs while it is out.
            self.reader = self.writer.execution_options(isolation_level="AUTOCOMMIT")
            direct = PostgresReader(url, limits["direct"])
            self._turns = _Turns(0)  # only the workspaces' turns (`transaction`)
        self.direct = DirectReads(direct, self.reader.dialect)

    @staticmethod
    def limits_of(url: str, pool_size: int) -> dict[str, int]:
        """The most connections of each pool a `Database(url, pool_size)` opens, named as in
        `watch_pools`. PostgreSQL: the shared pool (writes, and reads through SQLAlchemy)
        keeps `pool_size` and opens as many again in overflow under bursts; the direct reads
        open at most `pool_size` asyncpg connections. SQLite: one writer and `pool_size`
        readers (the direct reads keep one connection per thread, outside any pool)."""
        if make_url(url).get_backend_name() == "sqlite":
            return {"writer": 1, "reader": pool_size}
        return {"shared": 2 * pool_size, "direct": pool_size}

    @staticmethod
    def most_connections(url: str, pool_size: int) -> int:
        """The most database connections a `Database(url, pool_size)`, so one `serve`
        worker, holds at once: every pool at its limit (docs/deploy.md). On SQLite, which
        has no connection limit, the direct reads' connection is left out."""
        return sum(Database.limits_of(url, pool_size).values())

    @property
    def is_sqlite(self) -> bool:
        return self.dialect == "sqlite"

    @property
    def engines(self) -> tuple[Engine, ...]:
        """The (synchronous) engines that own a pool: events and disposal go to these."""
        writer, reader = _sync_engine(self.writer), _sync_engine(self.reader)
        return (writer,) if reader.pool is writer.pool else (writer, reader)

    def watch_statements(self, seen: Callable[[str], None]) -> None:
        """Calls `seen(sql)` before every statement this database runs, on either path
        (SQLAlchemy's engines and the direct reads)."""

        def before(_connection: Any, _cursor: Any, statement: str, *_: Any) -> None:
            seen(statement)

        for engine in self.engines:
            event.listen(engine, "before_cursor_execute", before)
        self.direct.observers.append(seen)

    def trace_statements(self, spans: StatementSpans) -> None:
        """Runs every statement inside its span, on either path."""
        for engine in self.engines:
            event.listen(engine, "before_cursor_execute", spans.before)
            event.listen(engine, "after_cursor_execute", spans.after)
            event.listen(engine, "handle_error", spans.failed)
        self.direct.around = spans.around

    def watch_pools(self, moved: Callable[[str, int], None]) -> None:
        """Calls `moved(pool, 1)` when a connection leaves a pool and `moved(pool, -1)` when
        it is back; pools are named as in `pool_limits`."""
        named = (
            {"writer": self.writer, "reader": self.reader}
            if self.is_sqlite
            else {"shared": self.writer}
        )
        for name, engine in named.items():
            pool = _sync_engine(engine).pool
            event.listen(pool, "checkout", lambda *_, name=name: moved(name, 1))
            event.listen(pool, "checkin", lambda *_, name=name: moved(name, -1))
        if isinstance(self.direct.reader, PostgresReader):
            self.direct.reader.watch = lambda delta: moved("direct", delta)

    @asynccontextmanager
    async def transaction(self, turn: str | None = None) -> AsyncIterator[Connection]:
        """One write transaction: committed when the block ends, rolled back on error.

        `turn`: the workspace whose row the transaction locks early (its ticket counter)
        and holds to the commit. On PostgreSQL such writers of one workspace then take
        turns in this process before they take a connection: queued on the row lock in
        the database instead, 32 of them cost PostgreSQL more CPU than their writes
        (createIssue: 2,203 against 1,030 µs per request with 8). SQLite's writers take
        turns anyway."""
        if isinstance(self.writer, AsyncEngine):
            async with (
                self._turns.of_workspace(turn) if turn is not None else nullcontext(),
                self.writer.begin() as pooled,
            ):
                connection = PooledConnection(pooled, self.direct, True)
                yield connection
                # The writes still waiting (`Connection.write`), then the COMMIT.
                await connection.send_waiting()
        else:
            async with self._turns.write:
                inline = await self._begin_sqlite(self.writer)
                try:
                    yield InlineConnection(inline, self.direct, True)
                except BaseException:
                    inline.rollback()
                    raise
                else:
                    inline.commit()
                finally:
                    inline.close()

    @staticmethod
    async def _begin_sqlite(writer: Engine) -> Any:
        """The writer's connection with BEGIN IMMEDIATE done: when another process holds
        the write lock, waits for it (asynchronously) for up to SQLITE_WRITE_WAIT. Each try
        is a statement on the driver's connection: under two processes' writes a
        transaction may take several, and through SQLAlchemy (a connection, an exception
        chain) each cost about 35 µs instead of a few."""
        give_up = time.monotonic() + SQLITE_WRITE_WAIT
        connection = writer.connect()
        try:
            driver = cast(sqlite3.Connection, connection.connection.driver_connection)
            for attempt in itertools.count():
                try:
                    driver.execute(BEGIN_WRITE)
                    break
                except sqlite3.OperationalError as error:
                    if "locked" not in str(error) or time.monotonic() > give_up:
                        raise OperationalError(BEGIN_WRITE, None, error) from error
                await asyncio.sleep(_WRITE_STEPS[min(attempt, len(_WRITE_STEPS) - 1)])
            connection.begin()  # SQLAlchemy's transaction over the driver's (_on_begin)
        except BaseException:
            connection.close()
            raise
        return connection

    @asynccontextmanager
    async def read(self) -> AsyncIterator[Connection]:
        """A connection for reads; nothing written through it is kept."""
        if isinstance(self.reader, AsyncEngine):
            async with self.reader.connect() as pooled:
                yield PooledConnection(pooled, self.direct, False)
        else:
            async with self._turns.read:
                with self.reader.connect() as inline:
                    yield InlineConnection(inline, self.direct, False)

    async def fetch(self, read: Read[T], **parameters: Any) -> list[T]:
        """The models of a read's rows, on a connection of its own, straight on the driver
        (`Connection.fetch` runs the same read inside a transaction)."""
        rows = await self.direct.rows(read.statement, parameters)
        return [read.row(row) for row in rows]

    def compile(self, statement: ReadStatement) -> Compiled:
        """A read's SQL for this database, for a caller that keeps it (`fetch_compiled`)."""
        return Compiled.of(statement, self.direct.dialect)

    async def fetch_compiled(self, compiled: Compiled, **parameters: Any) -> list[tuple[Any, ...]]:
        """The rows of a read compiled by `compile`, straight on the driver."""
        return await self.direct.run(compiled, parameters)

    async def ping(self) -> bool:
        """Whether the database answers through every pool that reads: SQLAlchemy's (on
        PostgreSQL the writes' pool too) and the direct reads'."""
        try:
            async with self.read() as connection:
                await connection.execute(text("SELECT 1"))
            await self.direct.ping()
        except Exception:
            return False
        return True

    async def dispose(self) -> None:
        await self.direct.close()
        if isinstance(self.writer, AsyncEngine):
            await self.writer.dispose()
        else:
            for engine in self.engines:
                engine.dispose()


def _sync_engine(engine: Engine | AsyncEngine) -> Engine:
    return engine.sync_engine if isinstance(engine, AsyncEngine) else engine


def _ensure_sqlite_folder(url: str) -> None:
    database = make_url(url).database
    if database and database != ":memory:":
        Path(database).parent.mkdir(parents=True, exist_ok=True)
