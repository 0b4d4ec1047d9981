"""Direct statements: prebuilt statements run on the database driver itself.

For a bounded index lookup (an API key, an issue, one page of a thread) or one of the hot
writes (createIssue's and replyToIssue's, the event log's), SQLAlchemy's execution layer
costs more CPU than the statement: a pooled-connection checkout, a greenlet switch, an
execution context and result metadata, every time. These statements are written once as
Core statements with bound parameters (so their SQL still comes from the table
definitions), compiled once per dialect, and run here:

- reads on a connection of their own: on PostgreSQL one of at most `size` asyncpg
  connections (autocommit, nothing reset between reads: these connections only ever run
  single SELECTs); on SQLite the
  standard library driver, inline on the calling thread;
- anything, reads and writes, on a transaction's own driver connection
  (`Connection.rows`, `Connection.run_many`), so it takes part in that transaction.

Values go through the same SQLAlchemy type processors as on the usual path, so a row read
or written here equals one read or written there, and a driver's error is raised as
SQLAlchemy's (an `IntegrityError` on both paths).
"""

from __future__ import annotations

import asyncio
import json
import re
import sqlite3
import threading
from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar

import asyncpg
from sqlalchemy import CompoundSelect, Delete, Insert, Select, TextClause, Update
from sqlalchemy.engine import Dialect, make_url
from sqlalchemy.exc import DBAPIError, IntegrityError

from supportdesk.db import deadline
from supportdesk.db.answers import register_functions

Processor = Callable[[Any], Any]
# A read statement: a SELECT, or a UNION of them.
ReadStatement = Select[Any] | CompoundSelect[Any]
# What runs on the driver: a read, or a write of the hot paths (inside a transaction); SQL
# written as text where no table definition describes its target (a full-text index).
DirectStatement = ReadStatement | Insert | Update | Delete | TextClause
_Result = TypeVar("_Result")


@dataclass(frozen=True, slots=True)
class Compiled:
    """A statement's SQL for one dialect, its parameters in order and its type processors."""

    sql: str
    names: tuple[str, ...]
    binds: tuple[Processor | None, ...]
    results: tuple[tuple[int, Processor], ...]
    # Values the statement carries itself (e.g. SQLite's `OFFSET 0` after a LIMIT).
    fixed: dict[str, Any]

    @classmethod
    def of(
        cls,
        statement: DirectStatement,
        dialect: Dialect,
        column_keys: Sequence[str] | None = None,
    ) -> Compiled:
        compiled: Any = statement.compile(dialect=dialect, column_keys=column_keys)
        if compiled.post_compile_params or compiled.literal_execute_params:
            raise ValueError("direct reads take no expanding (IN-list) parameters")
        names = tuple(compiled.positiontup or ())
        processors = compiled._bind_processors
        results = []
        for index, column in enumerate(compiled._result_columns):
            processor = column.type._cached_result_processor(dialect, None)
            if processor is not None:
                results.append((index, processor))
        fixed = {
            name: bind.effective_value
            for name, bind in compiled.binds.items()
            if name in names and not bind.required
        }
        return cls(
            str(compiled),
            names,
            tuple(processors.get(name) for name in names),
            tuple(results),
            fixed,
        )

    def arguments(self, parameters: Mapping[str, Any]) -> list[Any]:
        given = {**self.fixed, **parameters} if self.fixed else parameters
        values = [given[name] for name in self.names]
        return [
            process(value) if process else value
            for value, process in zip(values, self.binds, strict=True)
        ]

    def rows(self, raw: Sequence[Sequence[Any]]) -> list[tuple[Any, ...]]:
        if not self.results:
            return [tuple(row) for row in raw]
        found = []
        for row in raw:
            values = list(row)
            for index, process in self.results:
                values[index] = process(values[index])
            found.append(tuple(values))
        return found


async def _decode_json(connection: asyncpg.Connection) -> None:
    """JSON and JSONB come back decoded, as SQLAlchemy's asyncpg dialect has them (its JSON
    types then have no result processor of their own)."""
    for name in ("json", "jsonb"):
        await connection.set_type_codec(
            name, encoder=json.dumps, decoder=json.loads, schema="pg_catalog"
        )


class _PostgresConnections:
    """At most `size` asyncpg connections for single autocommit SELECTs, the last put back
    taken first. Not asyncpg's pool: its release runs in a task of its own (`shield`),
    which cost a tenth of a small read's CPU, and its reset, which these never need."""

    def __init__(self, dsn: str, size: int) -> None:
        self.dsn = dsn
        self._slots = asyncio.Semaphore(size)
        self._idle: list[asyncpg.Connection] = []
        self._taken: set[asyncpg.Connection] = set()

    async def take(self) -> asyncpg.Connection:
        await self._slots.acquire()
        try:
            while self._idle:
                connection = self._idle.pop()
                if not connection.is_closed():
                    break
            else:
                connection = await asyncpg.connect(self.dsn)
                await _decode_json(connection)
        except BaseException:
            self._slots.release()
            raise
        self._taken.add(connection)
        return connection

    def put_back(self, connection: asyncpg.Connection, reusable: bool) -> None:
        """`reusable`: the connection's last statement ended, well or with the database's
        error; otherwise (a cancellation, a broken connection) it is closed, not reused."""
        self._taken.discard(connection)
        if reusable and not connection.is_closed():
            self._idle.append(connection)
        else:
            connection.terminate()
        self._slots.release()

    async def close(self) -> None:
        idle, self._idle = self._idle, []
        for connection in idle:
            await connection.close()
        for connection in list(self._taken):
            connection.terminate()  # a read still running when the process stops


class PostgresReader:
    def __init__(self, url: str, size: int) -> None:
        self.dsn = make_url(url).set(drivername="postgresql").render_as_string(False)
        self.size = size
        # Told +1 when a connection leaves the pool and -1 when it is back (metrics).
        self.watch: Callable[[int], None] | None = None
        self._connections: _PostgresConnections | None = None

    @staticmethod
    async def run_many(
        compiled: Compiled, argument_sets: list[list[Any]], connection: asyncpg.Connection
    ) -> None:
        await connection.executemany(compiled.sql, argument_sets)

    async def fetch(
        self, compiled: Compiled, arguments: list[Any], connection: Any = None
    ) -> Sequence[Sequence[Any]]:
        if connection is not None:
            found: Sequence[Sequence[Any]] = await connection.fetch(compiled.sql, *arguments)
            return found
        if self._connections is None:
            self._connections = _PostgresConnections(self.dsn, self.size)
        connections = self._connections
        own = await connections.take()
        watch = self.watch
        if watch is not None:
            watch(1)
        reusable = False
        try:
            rows: Sequence[Sequence[Any]] = await own.fetch(compiled.sql, *arguments)
            reusable = True
        except asyncpg.PostgresError:
            reusable = True  # the database refused the statement; the connection is sound
            raise
        finally:
            connections.put_back(own, reusable)
            if watch is not None:
                watch(-1)
        return rows

    async def close(self) -> None:
        if self._connections is not None:
            await self._connections.close()
            self._connections = None


class SqliteReader:
    """One connection per thread (a database is used from one event loop's thread)."""

    def __init__(self, url: str, pragmas: Sequence[str]) -> None:
        self.path = make_url(url).database or ":memory:"
        self.pragmas = pragmas
        self._local = threading.local()
        self._all: list[sqlite3.Connection] = []
        self._guard = threading.Lock()

    def _connection(self) -> sqlite3.Connection:
        connection: sqlite3.Connection | None = getattr(self._local, "connection", None)
        if connection is None:
            connection = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            for pragma in self.pragmas:
                connection.execute(pragma)
            connection.set_progress_handler(deadline.progress, deadline.PROGRESS_STEPS)
            register_functions(connection)
            self._local.connection = connection
            with self._guard:
                self._all.append(connection)
        return connection

    async def fetch(
        self, compiled: Compiled, arguments: list[Any], connection: Any = None
    ) -> Sequence[Sequence[Any]]:
        return (connection or self._connection()).execute(compiled.sql, arguments).fetchall()

    @staticmethod
    async def run_many(
        compiled: Compiled, argument_sets: list[list[Any]], connection: sqlite3.Connection
    ) -> None:
        connection.executemany(compiled.sql, argument_sets)

    async def close(self) -> None:
        with self._guard:
            for connection in self._all:
                connection.close()
            self._all.clear()
        self._local = threading.local()


_POSITIONAL = re.compile(r"\$(\d+)")
# The most rows of waiting writes sent as one statement: enough for a new issue with its
# message and events; a bulk change's many rows go in one call per statement instead.
TOGETHER_AT_MOST = 6


def _moved(found: re.Match[str], offset: int) -> str:
    return f"${int(found.group(1)) + offset}"


def together(parts: Sequence[Compiled]) -> Compiled:
    """PostgreSQL writes as one statement: `WITH w1 AS (first), ... last`, each part's
    positional parameters ($1, $2, ...) moved past those of the parts before it. Its
    arguments are the parts' arguments in order; it reads no rows."""
    sections = []
    offset = 0
    for part in parts:
        numbers = {int(found) for found in _POSITIONAL.findall(part.sql)}
        if numbers != set(range(1, len(part.names) + 1)):
            raise ValueError(f"not a statement of numbered parameters: {part.sql}")
        sections.append(_POSITIONAL.sub(partial(_moved, offset=offset), part.sql))
        offset += len(part.names)
    *withs, last = sections
    heads = ", ".join(f"w{index} AS ({sql})" for index, sql in enumerate(withs, 1))
    return Compiled(f"WITH {heads} {last}", (), (), (), {})


# The readiness ping: no parameters, no type processing.
_PING = Compiled("SELECT 1", (), (), (), {})


def _translated(error: Exception, sql: str) -> Exception:
    """A driver's error as SQLAlchemy raises it on its own path, so that callers catch one
    kind (a unique violation is an `IntegrityError` on both paths)."""
    if isinstance(error, sqlite3.Error):
        return DBAPIError.instance(sql, None, error, sqlite3.Error, hide_parameters=True)
    if isinstance(error, asyncpg.IntegrityConstraintViolationError):
        return IntegrityError(sql, None, error, hide_parameters=True)
    if isinstance(error, asyncpg.PostgresError):
        return DBAPIError(sql, None, error, hide_parameters=True)
    return error


class DirectReads:
    """Runs prebuilt statements directly on the driver: reads on a connection of their own,
    or any of them on a transaction's driver connection. Tells observers each SQL, and runs
    each statement inside `around(sql)` when that is set (a tracing span)."""

    def __init__(self, reader: PostgresReader | SqliteReader, dialect: Dialect) -> None:
        self.reader = reader
        self.dialect = dialect
        self.observers: list[Callable[[str], None]] = []
        self.around: Callable[[str], AbstractContextManager[object]] | None = None
        self._compiled: dict[Any, tuple[DirectStatement, Compiled]] = {}
        # Writes sent together, by the identities of their compilations (kept above).
        self._together: dict[tuple[int, ...], Compiled] = {}

    def compiled(
        self, statement: DirectStatement, parameters: Mapping[str, Any] | None = None
    ) -> Compiled:
        # Keyed by identity: these statements are module-level constants. The statement is
        # kept beside its compilation so that its id cannot be reused by another object. An
        # INSERT without values of its own takes the columns it is given.
        bare_insert = isinstance(statement, Insert) and not statement._values
        key: Any = (id(statement), frozenset(parameters or ())) if bare_insert else id(statement)
        found = self._compiled.get(key)
        if found is None:
            columns = sorted(parameters or ()) if bare_insert else None
            found = (statement, Compiled.of(statement, self.dialect, columns))
            self._compiled[key] = found
        return found[1]

    async def rows(
        self,
        statement: DirectStatement,
        parameters: Mapping[str, Any],
        connection: Any = None,
    ) -> list[tuple[Any, ...]]:
        """The statement's rows, on `connection` (a transaction's driver connection) or,
        for a read, on the direct reads' own."""
        return await self.run(self.compiled(statement, parameters), parameters, connection)

    async def run(
        self, compiled: Compiled, parameters: Mapping[str, Any], connection: Any = None
    ) -> list[tuple[Any, ...]]:
        """`rows` for a statement its caller compiled (`Compiled.of`) and keeps."""
        return await self._send(compiled, compiled.arguments(parameters), connection)

    async def run_together(
        self,
        writes: Sequence[tuple[DirectStatement, Sequence[Mapping[str, Any]]]],
        connection: Any,
    ) -> None:
        """Writes whose rows nobody reads (a statement and its parameter sets), on a
        transaction's driver connection. On PostgreSQL up to TOGETHER_AT_MOST rows go as one
        statement, each but the last a data-modifying WITH (`together`); they must not
        touch the same rows, as they run in no set order. Otherwise one call per write."""
        rows = [(statement, row) for statement, sets in writes for row in sets]
        if self.dialect.name != "postgresql" or not 1 < len(rows) <= TOGETHER_AT_MOST:
            for statement, sets in writes:
                await self.run_many(statement, sets, connection)
            return
        parts = [self.compiled(statement, parameters) for statement, parameters in rows]
        key = tuple(id(part) for part in parts)
        fused = self._together.get(key)
        if fused is None:
            fused = self._together[key] = together(parts)
        arguments = [
            argument
            for part, (_, parameters) in zip(parts, rows, strict=True)
            for argument in part.arguments(parameters)
        ]
        await self._send(fused, arguments, connection)

    async def _send(
        self, compiled: Compiled, arguments: list[Any], connection: Any
    ) -> list[tuple[Any, ...]]:
        raw = await self._driven(
            compiled.sql, lambda: self.reader.fetch(compiled, arguments, connection)
        )
        return compiled.rows(raw)

    async def _driven(self, sql: str, call: Callable[[], Awaitable[_Result]]) -> _Result:
        """A call to the driver as every statement goes: observed, within the request's
        deadline, inside `around`, its errors translated."""
        for observe in self.observers:
            observe(sql)
        deadline.check()
        try:
            if self.around is None:
                return await call()
            with self.around(sql):
                return await call()
        except Exception as error:
            if deadline.passed():  # interrupted by SQLite's progress handler
                raise deadline.DeadlinePassed from error
            raise _translated(error, sql) from error

    async def run_many(
        self,
        statement: DirectStatement,
        parameter_sets: Sequence[Mapping[str, Any]],
        connection: Any,
    ) -> None:
        """The statement once per parameter set (each with the same keys), in one call."""
        if not parameter_sets:
            return
        compiled = self.compiled(statement, parameter_sets[0])
        arguments = [compiled.arguments(parameters) for parameters in parameter_sets]
        await self._driven(
            compiled.sql, lambda: self.reader.run_many(compiled, arguments, connection)
        )

    async def ping(self) -> None:
        """Runs `SELECT 1` on the driver as the reads do (on PostgreSQL, on a connection of
        the pool); raises when the database does not answer. Observers are not told: it is
        not a read of the service's."""
        await self.reader.fetch(_PING, [])

    async def close(self) -> None:
        await self.reader.close()
