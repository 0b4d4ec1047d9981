"""Statements compiled once per dialect, for the driver to run.

SQLAlchemy Core builds the statements (their SQL comes from the table definitions) and
compiles them; none of its execution layer runs. A statement compiles with named
placeholders (`%(name)s`), which Python's own `%` formatting then numbers for the driver:
`$1, $2, ...` for asyncpg, `?` for sqlite3. The same formatting numbers writes sent
together as one statement (`together`) on from the part before, so no SQL is rewritten by
pattern. Values go through the types' own bind and result processors: a row reads and
writes as it would through SQLAlchemy's execution.

Statements are kept by identity: a hot one is written once, as a module-level constant or
one per shape (`domain/lists.py`), and compiles once. One built per call compiles per call.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from sqlalchemy import CompoundSelect, Float, Insert, Numeric, Select, Update
from sqlalchemy.engine import Dialect, Row
from sqlalchemy.engine.result import result_tuple
from sqlalchemy.sql import ClauseElement, Executable
from sqlalchemy.sql.base import ColumnCollection
from sqlalchemy.sql.compiler import ExpandedState, SQLCompiler
from sqlalchemy.sql.dml import UpdateBase
from sqlalchemy.sql.selectable import SelectBase
from sqlalchemy.types import TypeEngine

from supportdesk.db.kept import Kept

Processor = Callable[[Any], Any]
# A read statement: a SELECT, or a UNION of them.
ReadStatement = Select[Any] | CompoundSelect[Any]
# The most writes of rows nobody reads sent as one statement: enough for a new issue with
# its message and events; a bulk change's many rows go in one call per statement instead.
TOGETHER_AT_MOST = 6


class _Placeholders(dict[str, str]):
    """Driver placeholders, handed out as `template % placeholders` asks for each name in
    turn: numbered (`$n`, one per name, from `offset` on) or not (`?`, one per use)."""

    def __init__(self, numbered: bool, offset: int = 0) -> None:
        super().__init__()
        self.numbered = numbered
        self.offset = offset
        self.names: list[str] = []

    def __missing__(self, name: str) -> str:
        self.names.append(name)
        if not self.numbered:
            return "?"
        place = self[name] = f"${self.offset + len(self.names)}"
        return place


def positional(template: str, numbered: bool, offset: int = 0) -> tuple[str, list[str]]:
    """A `%(name)s` template as the driver's SQL, and its parameters' names in order."""
    placeholders = _Placeholders(numbered, offset)
    return template % placeholders, placeholders.names


@dataclass(slots=True)
class Compiled:
    """A statement's SQL for one dialect, its parameters in order with their processors,
    and how its rows are read."""

    sql: str
    template: str  # the `%(name)s` SQL (`together`)
    names: tuple[str, ...]
    binds: tuple[Processor | None, ...]
    # Values the statement carries itself (a literal, SQLite's `OFFSET 0`).
    fixed: dict[str, Any]
    results: tuple[tuple[int, Processor], ...] = ()
    # The rows' column names; None when only the driver knows them (text).
    keys: tuple[str, ...] | None = None
    # None: not known before it runs (text).
    returns_rows: bool | None = None
    # Expanded per execution: IN-lists and values written into the SQL.
    late: SQLCompiler | None = None
    _row: Callable[[Sequence[Any]], Row[Any]] | None = field(default=None, init=False)

    def arguments(self, parameters: Mapping[str, Any]) -> list[Any]:
        given = {**self.fixed, **parameters} if self.fixed else parameters
        return [
            value if process is None else process(value)
            for value, process in zip([given[name] for name in self.names], self.binds, strict=True)
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

    def row_of(self, keys: Sequence[str]) -> Callable[[Sequence[Any]], Row[Any]]:
        """SQLAlchemy's `Row` of this statement's columns (named `keys` when it has none)."""
        if self._row is None:
            self._row = result_tuple(list(self.keys if self.keys is not None else keys))
        return self._row


def compile_statement(
    statement: Executable, dialect: Dialect, column_keys: Sequence[str] | None = None
) -> Compiled:
    compiled: Any = cast(ClauseElement, statement).compile(dialect=dialect, column_keys=column_keys)
    columns = _columns_of(statement)
    results = []
    for index, column in enumerate(columns or ()):
        process = _result_processor(column.type, dialect)
        if process is not None:
            results.append((index, process))
    shape: dict[str, Any] = {
        "results": tuple(results),
        "keys": None if columns is None else tuple(columns.keys()),
        "returns_rows": None if columns is None else bool(len(columns)),
    }
    if compiled.post_compile_params or compiled.literal_execute_params:
        return Compiled("", "", (), (), {}, late=compiled, **shape)
    return _placed(compiled, compiled.string, dialect, shape)


def _placed(
    compiled: SQLCompiler,
    template: str,
    dialect: Dialect,
    shape: dict[str, Any],
    expansion: ExpandedState | None = None,
) -> Compiled:
    """`template`'s placeholders for the driver, each with its processor and, if the
    statement carries it (or `expansion` has it), its value."""
    sql, placed = positional(template, numbered=dialect.name == "postgresql")
    unescaped = {escaped: name for name, escaped in (compiled.escaped_bind_names or {}).items()}
    names = [unescaped.get(name, name) for name in placed]
    binds: list[Processor | None] = []
    fixed: dict[str, Any] = {}
    for name, escaped in zip(names, placed, strict=True):
        bind = compiled.binds.get(name)
        if expansion is not None:
            fixed[name] = expansion.parameters[escaped]
        if bind is None:  # an element of an expanded IN-list
            binds.append(expansion.processors.get(escaped) if expansion else None)
            continue
        binds.append(bind.type.dialect_impl(dialect).bind_processor(dialect))
        if not bind.required and expansion is None:
            fixed[name] = bind.effective_value
    return Compiled(sql, template, tuple(names), tuple(binds), fixed, **shape)


def expanded(compiled: Compiled, dialect: Dialect, parameters: Mapping[str, Any]) -> Compiled:
    """A statement with IN-lists (or values written into its SQL) for these values."""
    assert compiled.late is not None
    state = compiled.late.construct_expanded_state(dict(parameters))
    shape = {"results": compiled.results, "keys": compiled.keys}
    return _placed(
        compiled.late,
        state.statement,
        dialect,
        {**shape, "returns_rows": compiled.returns_rows},
        state,
    )


def _result_processor(type_: TypeEngine[Any], dialect: Dialect) -> Processor | None:
    impl = type_.dialect_impl(dialect)
    if dialect.name == "postgresql" and isinstance(impl, Numeric | Float):
        # asyncpg reads a float as a float and a numeric as a Decimal, as these types ask;
        # SQLAlchemy's processor would want the column's type code, known once read.
        return None
    return impl.result_processor(dialect, None)


def _columns_of(statement: Executable) -> ColumnCollection[Any, Any] | None:
    if isinstance(statement, SelectBase):
        return statement.selected_columns
    if isinstance(statement, UpdateBase):
        return statement.exported_columns  # RETURNING
    return None


def together(parts: Sequence[Compiled]) -> Compiled:
    """PostgreSQL writes as one statement: `WITH w1 AS (first), ... last`, each part's
    parameters numbered on from those of the parts before it. Its arguments are the parts'
    arguments in order; it reads no rows."""
    sections = []
    offset = 0
    for part in parts:
        sql, names = positional(part.template, numbered=True, offset=offset)
        if len(names) != len(part.names):
            raise ValueError(f"not a statement of named parameters: {part.template}")
        sections.append(sql)
        offset += len(names)
    *withs, last = sections
    heads = ", ".join(f"w{index} AS ({sql})" for index, sql in enumerate(withs, 1))
    return Compiled(f"WITH {heads} {last}", "", (), (), {}, returns_rows=False)


class Statements:
    """A database's statements, each compiled once for its dialect; and who is told of
    each statement run (`observers`) or runs it inside a block of theirs (`around`)."""

    def __init__(self, dialect: Dialect) -> None:
        self.dialect = dialect
        self.observers: list[Callable[[str], None]] = []
        self.around: Callable[[str], Any] | None = None
        # By identity: the statement is kept beside its compilation, so that its id cannot
        # be another object's while the entry lives. Ones built per call go through too.
        self._kept: Kept[Any, tuple[Executable, Compiled]] = Kept(2048)
        # By the parts' SQL: a part's compilation may leave `_kept`, and its id with it.
        self._together: Kept[tuple[str, ...], Compiled] = Kept(256)

    def of(self, statement: Executable, parameters: Mapping[str, Any]) -> Compiled:
        """The statement compiled for these parameters (an INSERT or UPDATE sets the
        columns it is given, as SQLAlchemy's execution has it)."""
        if isinstance(statement, Insert | Update):
            key: Any = (id(statement), frozenset(parameters))
            columns: list[str] | None = sorted(parameters)
        else:
            key, columns = id(statement), None
        compiled = self._kept.get(
            key, lambda: (statement, compile_statement(statement, self.dialect, columns))
        )[1]
        if compiled.late is not None:
            return expanded(compiled, self.dialect, parameters)
        return compiled

    def together(self, parts: Sequence[Compiled]) -> Compiled:
        return self._together.get(tuple(part.template for part in parts), lambda: together(parts))
