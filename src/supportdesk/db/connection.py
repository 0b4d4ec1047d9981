"""The connection the domain writes and reads through, the same on both backends.

Statements built with SQLAlchemy run through SQLAlchemy (`execute`, `scalar`). The hot
statements, written once as module-level constants, run on the driver itself (`fetch`,
`rows`, `run_many`, see `direct.py`): inside a transaction on the transaction's own driver
connection, so they see and take part in what it has written; on a read connection on the
direct reads' connection.

SQLite's connection runs everything on the calling thread: a statement takes microseconds,
less than the hop to a worker thread and back, which cost about 500 µs here (a futex wake
on each side). PostgreSQL's wraps SQLAlchemy's `AsyncConnection` over asyncpg.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar, TypeVarTuple, overload

from sqlalchemy.engine import Connection as SyncConnection
from sqlalchemy.engine import CursorResult, Dialect, ScalarResult
from sqlalchemy.exc import OperationalError
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.sql import Executable
from sqlalchemy.sql.selectable import TypedReturnsRows

from supportdesk.db import deadline
from supportdesk.db.direct import DirectReads, DirectStatement

if TYPE_CHECKING:
    from supportdesk.db.reads import Read

T = TypeVar("T")
Ts = TypeVarTuple("Ts")
Parameters = Mapping[str, Any] | Sequence[Mapping[str, Any]] | None


class Connection:
    """One connection, for one transaction (`Database.transaction`) or for reads
    (`Database.read`)."""

    dialect: Dialect

    def __init__(self, direct: DirectReads, driver: Any | None) -> None:
        self._direct = direct
        # The transaction's driver connection; None on a read connection.
        self._driver = driver

    @overload
    async def execute(
        self, statement: TypedReturnsRows[*Ts], parameters: Parameters = None
    ) -> CursorResult[*Ts]: ...
    @overload
    async def execute(
        self, statement: Executable, parameters: Parameters = None
    ) -> CursorResult[*tuple[Any, ...]]: ...
    async def execute(
        self, statement: Executable, parameters: Parameters = None
    ) -> CursorResult[*tuple[Any, ...]]:
        deadline.check()
        return await self._execute(statement, parameters)

    async def _execute(
        self, statement: Executable, parameters: Parameters
    ) -> CursorResult[*tuple[Any, ...]]:
        raise NotImplementedError

    async def scalar(self, statement: Executable, parameters: Parameters = None) -> Any:
        return (await self.execute(statement, parameters)).scalar()

    async def scalars(
        self, statement: Executable, parameters: Parameters = None
    ) -> ScalarResult[Any]:
        return (await self.execute(statement, parameters)).scalars()

    async def run_sync(self, work: Callable[[SyncConnection], T]) -> T:
        """`work(connection)` with SQLAlchemy's synchronous connection (DDL, inspection)."""
        raise NotImplementedError

    async def _driver_connection(self) -> Any:
        return self._driver

    async def rows(
        self, statement: DirectStatement, parameters: Mapping[str, Any]
    ) -> list[tuple[Any, ...]]:
        """A prebuilt statement's rows (its RETURNING rows for a write), run on the driver."""
        return await self._direct.rows(statement, parameters, await self._driver_connection())

    async def write(self, statement: DirectStatement, parameters: Mapping[str, Any]) -> None:
        """A prebuilt write whose rows nobody reads, in this transaction. PostgreSQL sends
        it with the transaction's next statement or its commit, in one statement with any
        other writes waiting (`DirectReads.run_together`): a round trip saved for each. A
        failure is raised there instead, and fails the transaction as it would have here.
        Writes sent together must not touch the same rows: they run in no set order."""
        await self.rows(statement, parameters)

    async def write_many(
        self, statement: DirectStatement, parameter_sets: Sequence[Mapping[str, Any]]
    ) -> None:
        """`write` once per parameter set (`run_many`, when it waits for nothing)."""
        await self.run_many(statement, parameter_sets)

    async def run_many(
        self, statement: DirectStatement, parameter_sets: Sequence[Mapping[str, Any]]
    ) -> None:
        """A prebuilt write once per parameter set, on the driver, in one call."""
        driver = await self._driver_connection()
        if driver is None:
            raise RuntimeError("writes run in a transaction")
        await self._direct.run_many(statement, parameter_sets, driver)

    async def fetch(self, read: Read[T], **parameters: Any) -> list[T]:
        """The models of a read's rows (`Database.fetch` on this connection)."""
        make = read.row
        return [make(row) for row in await self.rows(read.statement, parameters)]


class InlineConnection(Connection):
    """SQLite: SQLAlchemy's synchronous connection, run on the event loop's thread."""

    def __init__(self, connection: SyncConnection, direct: DirectReads, in_transaction: bool):
        driver = connection.connection.driver_connection if in_transaction else None
        super().__init__(direct, driver)
        self._connection = connection
        self.dialect = connection.dialect

    async def _execute(
        self, statement: Executable, parameters: Parameters
    ) -> CursorResult[*tuple[Any, ...]]:
        try:
            return self._connection.execute(statement, parameters)
        except OperationalError as error:
            if deadline.passed():  # interrupted by the progress handler
                raise deadline.DeadlinePassed from error
            raise

    async def run_sync(self, work: Callable[[SyncConnection], T]) -> T:
        return work(self._connection)


class PooledConnection(Connection):
    """PostgreSQL: SQLAlchemy's `AsyncConnection` over asyncpg.

    SQLAlchemy's asyncpg adapter opens the transaction at its first statement; a statement
    sent to the driver first opens it the same way (`_start_transaction`, a private method:
    SQLAlchemy is pinned to its minor version, and `tests/db/test_connection.py` checks
    that a driver write is rolled back with the transaction)."""

    def __init__(self, connection: AsyncConnection, direct: DirectReads, in_transaction: bool):
        super().__init__(direct, None)
        self._connection = connection
        self._in_transaction = in_transaction
        self._adapter: Any = None
        self._waiting: list[tuple[DirectStatement, Sequence[Mapping[str, Any]]]] = []
        self.dialect = connection.dialect

    async def write(self, statement: DirectStatement, parameters: Mapping[str, Any]) -> None:
        await self.write_many(statement, [parameters])

    async def write_many(
        self, statement: DirectStatement, parameter_sets: Sequence[Mapping[str, Any]]
    ) -> None:
        if not self._in_transaction:
            raise RuntimeError("writes run in a transaction")
        if parameter_sets:
            self._waiting.append((statement, parameter_sets))

    async def send_waiting(self) -> None:
        """Sends the writes waiting (`write`): before any other statement, and before the
        transaction commits."""
        if self._waiting:
            waiting, self._waiting = self._waiting, []
            await self._direct.run_together(waiting, await self._driver_connection())

    async def _execute(
        self, statement: Executable, parameters: Parameters
    ) -> CursorResult[*tuple[Any, ...]]:
        await self.send_waiting()
        return await self._connection.execute(statement, parameters)

    async def run_sync(self, work: Callable[[SyncConnection], T]) -> T:
        await self.send_waiting()
        return await self._connection.run_sync(work)

    async def rows(
        self, statement: DirectStatement, parameters: Mapping[str, Any]
    ) -> list[tuple[Any, ...]]:
        await self.send_waiting()
        return await super().rows(statement, parameters)

    async def run_many(
        self, statement: DirectStatement, parameter_sets: Sequence[Mapping[str, Any]]
    ) -> None:
        await self.send_waiting()
        await super().run_many(statement, parameter_sets)

    async def _driver_connection(self) -> Any:
        if not self._in_transaction:
            return None
        adapter = self._adapter
        if adapter is None:
            raw = await self._connection.get_raw_connection()
            adapter = self._adapter = raw.dbapi_connection
        if adapter._transaction is None:
            await adapter._start_transaction()
        return adapter._connection
