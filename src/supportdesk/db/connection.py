"""The connection the domain reads and writes through: one type, on either driver.

Every statement runs on the driver itself, asyncpg or the standard library's sqlite3,
compiled once per dialect (`compiled.py`). On SQLite a statement runs inline on the event
loop's thread: it takes microseconds, less than the hop to a worker thread and back (about
500 µs here, a futex wake on each side). A driver's error is raised as SQLAlchemy's
exception of its kind (an `IntegrityError` for a broken constraint), without parameters:
they may hold key hashes or customer data.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from operator import itemgetter
from typing import TYPE_CHECKING, Any, Generic, TypeVar, TypeVarTuple, overload

import asyncpg
from sqlalchemy.engine import Dialect, Row, RowMapping
from sqlalchemy.exc import DBAPIError, IntegrityError, MultipleResultsFound, NoResultFound
from sqlalchemy.sql import Executable
from sqlalchemy.sql.selectable import TypedReturnsRows

from supportdesk.db import deadline
from supportdesk.db.compiled import TOGETHER_AT_MOST, Compiled, Statements

if TYPE_CHECKING:
    from supportdesk.db.reads import Read

T = TypeVar("T")
_first_column = itemgetter(0)
Ts = TypeVarTuple("Ts")
Parameters = Mapping[str, Any] | Sequence[Mapping[str, Any]] | None


class Listed(list[T]):
    """Rows, values or mappings read, with the ways SQLAlchemy's results hand them out."""

    def all(self) -> list[T]:
        return self

    def first(self) -> T | None:
        return self[0] if self else None

    def one(self) -> T:
        if len(self) != 1:
            raise NoResultFound("no row") if not self else MultipleResultsFound("rows")
        return self[0]


class Result(Generic[*Ts]):
    """A statement's rows, all read, and how many rows it changed."""

    __slots__ = ("_rows", "rowcount")

    def __init__(self, rows: Listed[Row[*Ts]], rowcount: int) -> None:
        self._rows = rows
        self.rowcount = rowcount

    def __iter__(self) -> Iterator[Row[*Ts]]:
        return iter(self._rows)

    def all(self) -> list[Row[*Ts]]:
        return self._rows

    fetchall = all

    def first(self) -> Row[*Ts] | None:
        return self._rows.first()

    def one(self) -> Row[*Ts]:
        return self._rows.one()

    def scalar(self) -> Any:
        return _first_column(self._rows[0]) if self._rows else None

    def scalars(self) -> Listed[Any]:
        return Listed(map(_first_column, self._rows))

    def mappings(self) -> Listed[RowMapping]:
        return Listed(row._mapping for row in self._rows)


class Connection:
    """One connection, for one transaction (`Database.transaction`) or for reads
    (`Database.read`)."""

    __slots__ = ("_driver", "_postgres", "_statements", "_turn", "_waiting", "_writes", "dialect")

    def __init__(
        self,
        statements: Statements,
        driver: Any,
        writes: bool,
        turn: Callable[[str], Awaitable[None]] | None = None,
    ) -> None:
        self._statements = statements
        self._turn = turn
        self.dialect: Dialect = statements.dialect
        self._postgres = self.dialect.name == "postgresql"
        # An asyncpg connection, or a sqlite3 one.
        self._driver = driver
        self._writes = writes
        self._waiting: list[tuple[Executable, Sequence[Mapping[str, Any]]]] = []

    async def take_turn(self, workspace_id: str) -> None:
        """Before a statement that locks `workspace_id`'s row until the commit (its
        counters): waits while this process's other transactions of the workspace hold
        their turn (`Database.transaction`). The writes waiting (`write`) are sent first,
        so that they run outside the turn. Nothing on SQLite, whose writers take turns
        anyway."""
        if self._turn is not None:
            if self._waiting:
                await self.send_waiting()
            await self._turn(workspace_id)

    @overload
    async def execute(
        self, statement: TypedReturnsRows[*Ts], parameters: Parameters = None
    ) -> Result[*Ts]: ...
    @overload
    async def execute(
        self, statement: Executable, parameters: Parameters = None
    ) -> Result[*tuple[Any, ...]]: ...
    async def execute(
        self, statement: Executable, parameters: Parameters = None
    ) -> Result[*tuple[Any, ...]]:
        """Any statement; a list of parameter sets runs it once per set (`run_many`)."""
        if parameters is not None and not isinstance(parameters, Mapping):
            await self.run_many(statement, parameters)
            return Result(Listed(), -1)
        if self._waiting:
            await self.send_waiting()
        given = parameters or {}
        compiled = self._statements.of(statement, given)
        raw, count, keys = await self._send(compiled, compiled.arguments(given))
        if not raw:
            return Result(Listed(), count)
        make = compiled.row_of(keys)
        return Result(Listed(make(row) for row in compiled.rows(raw)), count)

    async def scalar(self, statement: Executable, parameters: Parameters = None) -> Any:
        return (await self.execute(statement, parameters)).scalar()

    async def scalars(self, statement: Executable, parameters: Parameters = None) -> Listed[Any]:
        return (await self.execute(statement, parameters)).scalars()

    async def rows(
        self, statement: Executable, parameters: Mapping[str, Any]
    ) -> list[tuple[Any, ...]]:
        """A statement's rows as tuples (its RETURNING rows for a write)."""
        if self._waiting:
            await self.send_waiting()
        return await self.rows_of(self._statements.of(statement, parameters), parameters)

    async def rows_of(
        self, compiled: Compiled, parameters: Mapping[str, Any]
    ) -> list[tuple[Any, ...]]:
        """`rows` of a statement its caller compiled and keeps (`Database.compile`)."""
        raw, _, _ = await self._send(compiled, compiled.arguments(parameters))
        return compiled.rows(raw)

    async def fetch(self, read: Read[T], **parameters: Any) -> list[T]:
        """The models of a read's rows (`Database.fetch` on this connection)."""
        make = read.row
        return [make(row) for row in await self.rows(read.statement, parameters)]

    async def write(self, statement: Executable, parameters: Mapping[str, Any]) -> None:
        """A write whose rows nobody reads, in this transaction. PostgreSQL sends it with
        the transaction's next statement or its commit, in one statement with any other
        writes waiting (`send_waiting`): a round trip saved for each. A failure is raised
        there instead, and fails the transaction as it would have here. Writes sent
        together must not touch the same rows: they run in no set order."""
        await self.write_many(statement, [parameters])

    async def write_many(
        self, statement: Executable, parameter_sets: Sequence[Mapping[str, Any]]
    ) -> None:
        """`write` once per parameter set."""
        if not self._writes:
            raise RuntimeError("writes run in a transaction")
        if not self._postgres:
            await self.run_many(statement, parameter_sets)
        elif parameter_sets:
            self._waiting.append((statement, parameter_sets))

    async def run_many(
        self, statement: Executable, parameter_sets: Sequence[Mapping[str, Any]]
    ) -> None:
        """A write once per parameter set (each with the same keys), in one call."""
        if not self._writes:
            raise RuntimeError("writes run in a transaction")
        if self._waiting:
            await self.send_waiting()
        if not parameter_sets:
            return
        compiled = self._statements.of(statement, parameter_sets[0])
        if compiled.late is not None:
            for parameters in parameter_sets:
                await self.rows(statement, parameters)
            return
        sets = [compiled.arguments(parameters) for parameters in parameter_sets]
        await self._send(compiled, sets, many=True)

    async def send_waiting(self) -> None:
        """Sends the writes waiting (`write`): up to TOGETHER_AT_MOST rows as one
        statement, each but the last a data-modifying WITH; more, one call per statement."""
        waiting, self._waiting = self._waiting, []
        if not waiting:
            return
        rows = [(statement, row) for statement, sets in waiting for row in sets]
        if len(rows) == 1 or len(rows) > TOGETHER_AT_MOST:
            for statement, sets in waiting:
                await self.run_many(statement, sets)
            return
        statements = self._statements
        parts = [statements.of(statement, parameters) for statement, parameters in rows]
        if any(part.late is not None for part in parts):
            for statement, parameters in rows:
                await self.rows(statement, parameters)
            return
        arguments = [
            argument
            for part, (_, parameters) in zip(parts, rows, strict=True)
            for argument in part.arguments(parameters)
        ]
        await self._send(statements.together(parts), arguments)

    async def _send(
        self, compiled: Compiled, arguments: list[Any], many: bool = False
    ) -> tuple[Sequence[Sequence[Any]], int, Sequence[str]]:
        """Runs a statement as every statement runs: observed, within the request's
        deadline, inside `around`, its errors translated."""
        statements = self._statements
        sql = compiled.sql
        for observe in statements.observers:
            observe(sql)
        deadline.check()
        try:
            if statements.around is None:
                return await self._run(compiled, arguments, many)
            with statements.around(sql):
                return await self._run(compiled, arguments, many)
        except Exception as error:
            if deadline.passed():  # interrupted by SQLite's progress handler
                raise deadline.DeadlinePassed from error
            if self._postgres and self._driver.is_closed():  # lost before or while it ran
                raise DatabaseUnavailable(f"{type(error).__name__}: {error}") from error
            raise translated(error, sql) from error

    async def _run(
        self, compiled: Compiled, arguments: list[Any], many: bool
    ) -> tuple[Sequence[Sequence[Any]], int, Sequence[str]]:
        sql, driver = compiled.sql, self._driver
        if not self._postgres:
            cursor = driver.executemany(sql, arguments) if many else driver.execute(sql, arguments)
            raw = cursor.fetchall()
            keys = [column[0] for column in cursor.description or ()]
            return raw, len(raw) if compiled.returns_rows else cursor.rowcount, keys
        if many:
            await driver.executemany(sql, arguments)
            return (), -1, ()
        if compiled.returns_rows is False:
            status: str = await driver.execute(sql, *arguments)
            count = status.rpartition(" ")[2]
            return (), int(count) if count.isdigit() else -1, ()
        found: list[asyncpg.Record] = await driver.fetch(sql, *arguments)
        return found, len(found), list(found[0].keys()) if found else ()


class DatabaseUnavailable(OSError):
    """No connection to the database could be had (refused, timed out, the server starting
    or full). An OSError, as the driver's own for a refused connection is: whoever caught
    those catches this. The API answers it 503, which clients retry."""


# The connection gone (reset, closed by the server) or the server shutting down or starting.
_CONNECTION_LOST = (
    OSError,
    asyncpg.PostgresConnectionError,
    asyncpg.AdminShutdownError,
    asyncpg.CrashShutdownError,
    asyncpg.CannotConnectNowError,
    asyncpg.InternalClientError,  # the driver's state broken by a connection cut mid-way
)


def translated(error: Exception, sql: str) -> Exception:
    """A driver's error as SQLAlchemy's exception of its kind, so that callers catch one
    kind on both backends (a unique violation is an `IntegrityError`); a connection lost or
    a server going down as DatabaseUnavailable."""
    if (
        isinstance(error, _CONNECTION_LOST)
        and not isinstance(error, TimeoutError | asyncpg.ProtocolViolationError)  # our bug
    ):
        return DatabaseUnavailable(f"{type(error).__name__}: {error}")
    if isinstance(error, sqlite3.Error):
        return DBAPIError.instance(sql, None, error, sqlite3.Error, hide_parameters=True)
    if isinstance(error, asyncpg.IntegrityConstraintViolationError):
        return IntegrityError(sql, None, error, hide_parameters=True)
    if isinstance(error, asyncpg.PostgresError | asyncpg.InterfaceError):
        return DBAPIError(sql, None, error, hide_parameters=True)
    return error
