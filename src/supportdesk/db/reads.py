"""Compiled reads: a read is written once and run the same way everywhere.

A `Read` is a Core statement with bound parameters plus the function that turns one of its
rows into a model. `Database.fetch(read, **parameters)` runs it on a read connection of its
own (its SQL compiled once per dialect, see `compiled.py`); `connection.fetch(read, ...)`
runs the very same statement in a transaction, for a write that must read what it is about
to change.

A list of ids is one bound parameter (`in_ids`), not an IN-list that changes the SQL with its
length: `= ANY(:ids)` with an array on PostgreSQL, `IN (SELECT value FROM json_each(:ids))`
with a JSON array on SQLite. So one compiled statement serves one id or a hundred.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from sqlalchemy import ColumnElement, String, bindparam
from sqlalchemy.dialects import postgresql
from sqlalchemy.engine import Dialect
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.elements import BindParameter
from sqlalchemy.sql.visitors import InternalTraversal
from sqlalchemy.types import NullType, TypeDecorator, TypeEngine

from supportdesk.db.compiled import ReadStatement

T = TypeVar("T")


class IdList(TypeDecorator[Sequence[str]]):
    """A list of ids bound as one value: an array on PostgreSQL, JSON text on SQLite."""

    impl = String
    cache_ok = True

    def load_dialect_impl(self, dialect: Dialect) -> TypeEngine[Any]:
        if dialect.name == "postgresql":
            return dialect.type_descriptor(postgresql.ARRAY(String()))
        return dialect.type_descriptor(String())

    def process_bind_param(self, value: Sequence[str] | None, dialect: Dialect) -> Any:
        if value is None:
            return None
        return list(value) if dialect.name == "postgresql" else json.dumps(list(value))


class _InIds(ColumnElement[bool]):
    inherit_cache = True
    # Not Boolean: SQLite would get `... = 1` for a Boolean standing alone in a WHERE,
    # which hides the IN from its planner (a scan of the table instead of key lookups).
    type = NullType()  # type: ignore[assignment]
    _traverse_internals = [
        ("column", InternalTraversal.dp_clauseelement),
        ("ids", InternalTraversal.dp_clauseelement),
    ]

    def __init__(self, column: ColumnElement[Any], ids: BindParameter[Any]) -> None:
        self.column = column
        self.ids = ids


@compiles(_InIds, "postgresql")
def _in_array(element: _InIds, compiler: SQLCompiler, **kw: Any) -> str:
    return f"{compiler.process(element.column, **kw)} = ANY({compiler.process(element.ids, **kw)})"


@compiles(_InIds)
def _in_json_array(element: _InIds, compiler: SQLCompiler, **kw: Any) -> str:
    column, ids = compiler.process(element.column, **kw), compiler.process(element.ids, **kw)
    return f"{column} IN (SELECT value FROM json_each({ids}))"


def in_ids(
    column: ColumnElement[Any], name: str, values: Sequence[str] | None = None
) -> ColumnElement[bool]:
    """`column` is one of the ids (or other texts) bound as `name`, a list of any length:
    given at execution, or here as `values`."""
    if values is None:
        return _InIds(column, bindparam(name, type_=IdList()))
    return _InIds(column, bindparam(name, list(values), type_=IdList(), unique=True))


@dataclass(frozen=True, slots=True, eq=False)
class Read(Generic[T]):
    """A read statement (built once, bound parameters only) and its row's model."""

    statement: ReadStatement
    row: Callable[[Sequence[Any]], T]


def positional(
    model: Callable[..., T], columns: Sequence[ColumnElement[Any]]
) -> Callable[[Sequence[Any]], T]:
    """A row's model from the row's first columns, given in the model's field order (checked
    once, here): positional arguments cost less than a mapping per row."""
    fields = tuple(field.name for field in dataclasses.fields(model))  # type: ignore[arg-type]
    names = tuple(getattr(column, "name", None) for column in columns)
    if names != fields:
        raise ValueError(f"columns {names} are not {model!r}'s fields {fields}")
    width = len(fields)

    def of(row: Sequence[Any]) -> T:
        return model(*row[:width])

    return of
