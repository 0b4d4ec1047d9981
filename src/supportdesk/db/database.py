"""The database: its connections and its transactions.

PostgreSQL: one asyncpg pool. A read is a bare statement (autocommit: it sees the latest
committed state, in one round trip instead of three); a write transaction is the
connection's own `transaction()`. SQLite allows one writer at a time: each thread (so each
event loop) has one writer connection, whose transactions start with BEGIN IMMEDIATE so
that concurrent writers queue instead of failing half-way, and one reader connection in
autocommit that sees a WAL snapshot per statement. Waiting for the write lock is
asynchronous, so the loop never blocks on it.
"""

from __future__ import annotations

import asyncio
import errno
import itertools
import json
import sqlite3
import threading
import time
from collections.abc import AsyncIterator, Callable
from contextlib import (
    AbstractAsyncContextManager,
    AbstractContextManager,
    AsyncExitStack,
    asynccontextmanager,
)
from pathlib import Path
from typing import Any, ParamSpec, Protocol, TypeVar

import asyncpg
from sqlalchemy import text
from sqlalchemy.dialects.postgresql import asyncpg as postgresql_asyncpg
from sqlalchemy.dialects.sqlite import pysqlite
from sqlalchemy.engine import Dialect, make_url
from sqlalchemy.exc import OperationalError

from supportdesk.db import deadline
from supportdesk.db.answers import register_functions
from supportdesk.db.compiled import Compiled, ReadStatement, Statements, compile_statement
from supportdesk.db.connection import Connection, DatabaseUnavailable, translated
from supportdesk.db.postgres_pool import PostgresPool
from supportdesk.db.reads import Read

T = TypeVar("T")
P = ParamSpec("P")


class StatementSpans(Protocol):
    """A span per statement: the statement runs inside `around(sql)`."""

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
# How long a transaction waits for its workspace's turn before it goes to the row without
# it: a transaction may hold rows when it asks, and a cycle through the turn and a row
# lock is invisible to the database's deadlock detector, which sees it once the waiter
# reaches the row.
TURN_WAIT = 1.0
_WRITE_STEPS = (0.0005, 0.001, 0.002)


def _dialect(backend: str) -> Dialect:
    """The dialect statements compile for: that of the driver that runs them."""
    made = postgresql_asyncpg.dialect if backend == "postgresql" else pysqlite.dialect
    return made(dbapi=made.import_dbapi(), paramstyle="pyformat")


class _Turns(threading.local):
    """Per thread (so per event loop): the turns of a workspace's writers on PostgreSQL."""

    def __init__(self) -> None:
        self.workspaces: dict[str, tuple[asyncio.Lock, int]] = {}

    @asynccontextmanager
    async def of_workspace(self, workspace_id: str, wait: float) -> AsyncIterator[None]:
        """The workspace's turn in this process; after `wait` seconds without it, the block
        runs without it (and waits on the row in the database, where a deadlock is seen)."""
        lock, users = self.workspaces.get(workspace_id, (asyncio.Lock(), 0))
        self.workspaces[workspace_id] = (lock, users + 1)
        held = False
        try:
            try:
                async with asyncio.timeout(wait):
                    held = await lock.acquire()
            except TimeoutError:
                pass
            yield
        finally:
            if held:
                lock.release()
            lock, users = self.workspaces[workspace_id]
            if users == 1:
                del self.workspaces[workspace_id]
            else:
                self.workspaces[workspace_id] = (lock, users - 1)


class _SqliteConnections(threading.local):
    """This thread's writer and reader connections, opened when first used."""

    def __init__(self, path: str, opened: list[sqlite3.Connection]) -> None:
        self.path = path
        self._opened = opened
        self.write = asyncio.Lock()
        self.writer: sqlite3.Connection | None = None
        self.reader: sqlite3.Connection | None = None
        self.reading = 0  # reads in progress on the reader

    def open(self, writes: bool) -> sqlite3.Connection:
        # Transactions are ours to begin: no implicit BEGIN from the driver. A missing file
        # is not made here: only migrating makes a database.
        try:
            connection = sqlite3.connect(
                _existing(self.path), isolation_level=None, check_same_thread=False, uri=True
            )
        except sqlite3.OperationalError:
            if self.path != ":memory:" and not Path(self.path).exists():
                raise FileNotFoundError(errno.ENOENT, "No database file", self.path) from None
            raise
        for pragma in SQLITE_PRAGMAS:
            connection.execute(pragma)
        if writes:
            # BEGIN IMMEDIATE answers "locked" at once instead of blocking the event loop;
            # `Database._begin_sqlite` waits and tries again.
            connection.execute("PRAGMA busy_timeout=0")
        connection.set_progress_handler(deadline.progress, deadline.PROGRESS_STEPS)
        register_functions(connection)
        self._opened.append(connection)
        return connection


async def _json_codecs(connection: asyncpg.Connection) -> None:
    """JSON and JSONB come back decoded; they go in as the text SQLAlchemy's JSON type
    makes of a value."""
    for name in ("json", "jsonb"):
        await connection.set_type_codec(name, encoder=str, decoder=json.loads, schema="pg_catalog")


def _sound_after(error: Exception) -> bool:
    """Whether a connection whose block failed with `error` may serve again: yes after an
    error of a statement, no when the connection itself was lost (the server ended it, or
    the driver's state is broken): it is closed, and the next block opens another."""
    return not isinstance(error, DatabaseUnavailable)


class Database:
    """The service's storage: a read path and a write path over one database."""

    def __init__(self, url: str, pool_size: int = 10) -> None:
        self.url = url
        parsed = make_url(url)
        self.dialect = parsed.get_backend_name()
        self.pool_limits = self.limits_of(url, pool_size)
        self._statements = Statements(_dialect(self.dialect))
        self._moved: Callable[[str, int], None] | None = None
        self._after_commit: list[Callable[[], None]] = []
        if self.is_sqlite:
            self._opened: list[sqlite3.Connection] = []
            self._sqlite = _SqliteConnections(parsed.database or ":memory:", self._opened)
        else:
            self._dsn = parsed.set(drivername="postgresql").render_as_string(False)
            self._pool = PostgresPool(self._dsn, self.pool_limits["shared"], _json_codecs)
            self._turns = _Turns()

    @staticmethod
    def limits_of(url: str, pool_size: int) -> dict[str, int]:
        """The most connections of each pool a `Database(url, pool_size)` opens, named as in
        `watch_pools`. PostgreSQL: one pool of reads and writes, at most 2 × `pool_size`.
        SQLite: one writer and one reader (per thread)."""
        if make_url(url).get_backend_name() == "sqlite":
            return {"writer": 1, "reader": 1}
        return {"shared": 2 * pool_size}

    @staticmethod
    def most_connections(url: str, pool_size: int) -> int:
        """The most database connections a `Database(url, pool_size)`, so one `serve`
        worker, holds at once: every pool at its limit (docs/deploy.md)."""
        return sum(Database.limits_of(url, pool_size).values())

    @property
    def is_sqlite(self) -> bool:
        return self.dialect == "sqlite"

    def watch_statements(self, seen: Callable[[str], None]) -> None:
        """Calls `seen(sql)` before every statement this database runs."""
        self._statements.observers.append(seen)

    def trace_statements(self, spans: StatementSpans) -> None:
        """Runs every statement inside its span."""
        self._statements.around = spans.around

    def watch_pools(self, moved: Callable[[str, int], None]) -> None:
        """Calls `moved(pool, 1)` when a connection goes to work and `moved(pool, -1)` when
        it is back; pools are named as in `pool_limits`. SQLite's reader is at work while
        any read uses it."""
        self._moved = moved

    def transaction(self) -> AbstractAsyncContextManager[Connection]:
        """One write transaction: committed when the block ends, rolled back on error.

        On PostgreSQL a workspace's row, once locked for its counters, is held to the
        commit: the writers of one workspace take turns for it in this process first
        (`Connection.take_turn`), and the turn is held to the commit. Queued on the row
        lock in the database instead, 32 of them cost PostgreSQL more CPU than their
        writes (createIssue: 2,203 against 1,030 µs per request with 8; replyToIssue:
        10,300 against 2,200). SQLite's writers take turns anyway."""
        if self.is_sqlite:
            return self._sqlite_transaction()
        return self._postgres_transaction()

    def after_commit(self, committed: Callable[[], None]) -> None:
        """Calls `committed()` after every write transaction this process commits, once its
        connection is given back: whoever it wakes (the live event stream) sees what was
        written. It runs on the committing task and must not block."""
        self._after_commit.append(committed)

    def _committed(self) -> None:
        for committed in self._after_commit:
            committed()

    def read(self) -> AbstractAsyncContextManager[Connection]:
        """A connection for reads; nothing written through it is kept."""
        return self._sqlite_read() if self.is_sqlite else self._postgres_read()

    @asynccontextmanager
    async def _postgres_transaction(self) -> AsyncIterator[Connection]:
        async with AsyncExitStack() as turns:
            # Released after the commit. One workspace's: a second would be taken without
            # a turn (it waits on its row in the database).
            held: set[str] = set()

            async def take_turn(workspace_id: str) -> None:
                if not held:
                    held.add(workspace_id)
                    await turns.enter_async_context(
                        self._turns.of_workspace(workspace_id, TURN_WAIT)
                    )

            driver = await self._acquire()
            sound = False
            try:
                connection = Connection(self._statements, driver, True, take_turn)
                async with driver.transaction():
                    yield connection
                    # The writes still waiting (`Connection.write`), then the COMMIT.
                    await connection.send_waiting()
                sound = True
            except (asyncpg.PostgresError, asyncpg.InterfaceError) as error:
                # BEGIN's or COMMIT's, or the transaction's end on a connection lost meanwhile
                # (asyncpg then says it is closed, hiding what the statement said).
                failed = (
                    DatabaseUnavailable(f"{type(error).__name__}: {error}")
                    if driver.is_closed()
                    else translated(error, "COMMIT")
                )
                sound = _sound_after(failed)
                raise failed from error
            except Exception as error:
                sound = _sound_after(error)
                raise
            finally:
                self._release(driver, sound)
        self._committed()

    @asynccontextmanager
    async def _postgres_read(self) -> AsyncIterator[Connection]:
        driver = await self._acquire()
        sound = False
        try:
            yield Connection(self._statements, driver, False)
            sound = True
        except Exception as error:
            sound = _sound_after(error)
            raise
        finally:
            self._release(driver, sound)

    async def _acquire(self) -> asyncpg.Connection:
        try:
            driver = await self._pool.acquire()
        except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError) as error:
            # Whatever stops a connection from being had: refused, timed out, the server
            # starting, full, or the database or role missing.
            raise DatabaseUnavailable(f"{type(error).__name__}: {error}") from error
        self._tell("shared", 1)
        return driver

    def _release(self, driver: asyncpg.Connection, sound: bool) -> None:
        """`sound`: the block ended, or failed with an error; not when it was cancelled,
        perhaps mid-statement (that connection is closed)."""
        self._pool.release(driver, sound=sound)
        self._tell("shared", -1)

    @asynccontextmanager
    async def _sqlite_transaction(self) -> AsyncIterator[Connection]:
        local = self._sqlite
        async with local.write:
            writer = local.writer or local.open(writes=True)
            local.writer = writer
            await self._begin_sqlite(writer)
            self._tell("writer", 1)
            try:
                yield Connection(self._statements, writer, True)
            except BaseException:
                writer.rollback()
                raise
            else:
                try:
                    writer.commit()
                except sqlite3.Error as error:
                    raise translated(error, "COMMIT") from error
            finally:
                self._tell("writer", -1)
        self._committed()

    @staticmethod
    async def _begin_sqlite(writer: sqlite3.Connection) -> None:
        """BEGIN IMMEDIATE on the writer: when another process holds the write lock, waits
        for it (asynchronously) for up to SQLITE_WRITE_WAIT."""
        give_up = time.monotonic() + SQLITE_WRITE_WAIT
        for attempt in itertools.count():
            try:
                writer.execute(BEGIN_WRITE)
                return
            except sqlite3.OperationalError as error:
                if "locked" not in str(error) or time.monotonic() > give_up:
                    raise OperationalError(BEGIN_WRITE, None, error) from error
            await asyncio.sleep(_WRITE_STEPS[min(attempt, len(_WRITE_STEPS) - 1)])

    @asynccontextmanager
    async def _sqlite_read(self) -> AsyncIterator[Connection]:
        local = self._sqlite
        reader = local.reader or local.open(writes=False)
        local.reader = reader
        local.reading += 1
        if local.reading == 1:
            self._tell("reader", 1)
        try:
            yield Connection(self._statements, reader, False)
        finally:
            local.reading -= 1
            if not local.reading:
                self._tell("reader", -1)

    def _tell(self, pool: str, delta: int) -> None:
        if self._moved is not None:
            self._moved(pool, delta)

    async def fetch(self, read: Read[T], **parameters: Any) -> list[T]:
        """The models of a read's rows, on a read connection of its own."""
        rows = await self.fetch_compiled(
            self._statements.of(read.statement, parameters), **parameters
        )
        make = read.row
        return [make(row) for row in rows]

    def compile(self, statement: ReadStatement) -> Compiled:
        """A read's SQL for this database, for a caller that keeps it (`fetch_compiled`)."""
        return compile_statement(statement, self._statements.dialect)

    async def fetch_compiled(self, compiled: Compiled, **parameters: Any) -> list[tuple[Any, ...]]:
        """The rows of a read compiled by `compile`."""
        if self.is_sqlite:
            async with self._sqlite_read() as connection:
                return await connection.rows_of(compiled, parameters)
        # As `read()` has it, without a context manager's steps: the hottest reads come here.
        driver = await self._acquire()
        sound = False
        try:
            rows = await Connection(self._statements, driver, False).rows_of(compiled, parameters)
            sound = True
        except Exception as error:
            sound = _sound_after(error)
            raise
        finally:
            self._release(driver, sound)
        return rows

    async def ping(self) -> bool:
        """Whether the database answers a statement."""
        try:
            async with self.read() as connection:
                await connection.execute(text("SELECT 1"))
        except Exception:
            return False
        return True

    async def dispose(self) -> None:
        if self.is_sqlite:
            opened, self._opened[:] = list(self._opened), []
            for connection in opened:
                connection.close()
            self._sqlite = _SqliteConnections(self._sqlite.path, self._opened)
            return
        # A fresh pool, as SQLite's connections are made anew: a Database can be used again.
        pool, self._pool = self._pool, PostgresPool(self._dsn, self._pool.size, _json_codecs)
        await pool.close()


def _existing(path: str) -> str:
    """The URI that opens the SQLite file at `path` only if it is there."""
    if path == ":memory:":
        return "file::memory:"
    return Path(path).absolute().as_uri() + "?mode=rw"


def _ensure_sqlite_folder(url: str) -> None:
    database = make_url(url).database
    if database and database != ":memory:":
        Path(database).parent.mkdir(parents=True, exist_ok=True)
