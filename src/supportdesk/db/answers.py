"""JSON built by the database: the pieces of a compiled answer, one construct per idea,
each written once per dialect (graphql/compiled.py explains what compiles).

- `json_object(pairs)`: an object whose keys keep their order (`json_build_object` on
  PostgreSQL, whose `json` type keeps key order, unlike `jsonb`; `json_object` on SQLite).
- `json_value(expression)`: JSON made elsewhere (a sub-select, a CASE) placed inside
  another: SQLite forgets that text is JSON when it crosses a sub-select, `json()` says so
  again; PostgreSQL keeps the type.
- `json_items(expression, where)`: the JSON array of the rows that pass `where`, in the
  order the rows come in (an empty array for none). Both backends' aggregates read a
  sub-select's rows in its ORDER BY when the level that aggregates joins nothing (as
  PostgreSQL's manual says of ordered aggregate input); an `ORDER BY` inside the
  aggregate made PostgreSQL 15 sort every page again, its texts and all.
- `json_boolean(condition)`: `true`/`false`, which SQLite has no type for.
- `rfc3339(column)`: an instant as the API writes it (UTC, milliseconds, `Z`).
- `signed_cursor(position)`: the cursor of a position, signed as
  `domain/pagination.Cursors` signs it: HMAC-SHA256 under the cursor key of the request's
  workspace, computed from the bound `cursor_inner`/`cursor_outer` pads and `cursor_scope`
  with PostgreSQL's own `sha256`, and by `sign_cursor` (registered on each SQLite
  connection) on SQLite.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import re
import sqlite3
from collections.abc import Sequence
from typing import Any

from sqlalchemy import ColumnElement, LargeBinary, String, Text, bindparam, cast
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.visitors import InternalTraversal
from sqlalchemy.types import JSON

# A key of a compiled object: a GraphQL response name, written into the SQL as a literal.
_NAME = re.compile(r"^[_A-Za-z][_0-9A-Za-z]*$")
# PostgreSQL functions take at most 100 arguments: 50 pairs.
MAX_KEYS = 50
CURSOR_MAC_BYTES = 12
_BLOCK = 64  # SHA-256's block size, for HMAC's pads


class _Json(ColumnElement[Any]):
    inherit_cache = True
    type = JSON()


class JsonObject(_Json):
    _traverse_internals = [
        ("keys", InternalTraversal.dp_string_list),
        ("values", InternalTraversal.dp_clauseelement_list),
    ]

    def __init__(self, keys: Sequence[str], values: Sequence[ColumnElement[Any]]) -> None:
        if len(keys) > MAX_KEYS:
            raise ValueError(f"at most {MAX_KEYS} keys")
        for key in keys:
            if not _NAME.match(key):
                raise ValueError(f"not a GraphQL name: {key!r}")
        self.keys = list(keys)
        self.values = list(values)


def _pairs(element: JsonObject, compiler: SQLCompiler, **kw: Any) -> str:
    return ", ".join(
        f"'{key}', {compiler.process(value, **kw)}"
        for key, value in zip(element.keys, element.values, strict=True)
    )


@compiles(JsonObject, "postgresql")
def _object_pg(element: JsonObject, compiler: SQLCompiler, **kw: Any) -> str:
    return f"json_build_object({_pairs(element, compiler, **kw)})"


@compiles(JsonObject)
def _object_sqlite(element: JsonObject, compiler: SQLCompiler, **kw: Any) -> str:
    return f"json_object({_pairs(element, compiler, **kw)})"


def json_object(pairs: Sequence[tuple[str, ColumnElement[Any]]]) -> ColumnElement[Any]:
    return JsonObject([key for key, _ in pairs], [value for _, value in pairs])


class JsonValue(_Json):
    _traverse_internals = [("value", InternalTraversal.dp_clauseelement)]

    def __init__(self, value: ColumnElement[Any]) -> None:
        self.value = value


@compiles(JsonValue, "postgresql")
def _value_pg(element: JsonValue, compiler: SQLCompiler, **kw: Any) -> str:
    return f"({compiler.process(element.value, **kw)})"


@compiles(JsonValue)
def _value_sqlite(element: JsonValue, compiler: SQLCompiler, **kw: Any) -> str:
    return f"json({compiler.process(element.value, **kw)})"


def json_value(value: ColumnElement[Any]) -> ColumnElement[Any]:
    return JsonValue(value)


class JsonItems(_Json):
    _traverse_internals = [
        ("item", InternalTraversal.dp_clauseelement),
        ("where", InternalTraversal.dp_clauseelement),
    ]

    def __init__(self, item: ColumnElement[Any], where: ColumnElement[bool]) -> None:
        self.item = item
        self.where = where


@compiles(JsonItems, "postgresql")
def _items_pg(element: JsonItems, compiler: SQLCompiler, **kw: Any) -> str:
    item, where = compiler.process(element.item, **kw), compiler.process(element.where, **kw)
    return f"coalesce(json_agg({item}) FILTER (WHERE {where}), '[]'::json)"


@compiles(JsonItems)
def _items_sqlite(element: JsonItems, compiler: SQLCompiler, **kw: Any) -> str:
    item, where = compiler.process(element.item, **kw), compiler.process(element.where, **kw)
    return f"json_group_array(json({item})) FILTER (WHERE {where})"


def json_items(item: ColumnElement[Any], where: ColumnElement[bool]) -> ColumnElement[Any]:
    """The array of `item` over the rows where `where` holds, in the order of the
    sub-select the rows are read from (which must be ordered, and the only FROM)."""
    return JsonItems(item, where)


class JsonBoolean(_Json):
    _traverse_internals = [("condition", InternalTraversal.dp_clauseelement)]

    def __init__(self, condition: ColumnElement[Any]) -> None:
        self.condition = condition


@compiles(JsonBoolean, "postgresql")
def _boolean_pg(element: JsonBoolean, compiler: SQLCompiler, **kw: Any) -> str:
    return f"({compiler.process(element.condition, **kw)})"


@compiles(JsonBoolean)
def _boolean_sqlite(element: JsonBoolean, compiler: SQLCompiler, **kw: Any) -> str:
    condition = compiler.process(element.condition, **kw)
    return f"json(CASE WHEN {condition} THEN 'true' ELSE 'false' END)"


def json_boolean(condition: ColumnElement[Any]) -> ColumnElement[Any]:
    return JsonBoolean(condition)


class Rfc3339(ColumnElement[str]):
    inherit_cache = True
    type = String()
    _traverse_internals = [("column", InternalTraversal.dp_clauseelement)]

    def __init__(self, column: ColumnElement[Any]) -> None:
        self.column = column


@compiles(Rfc3339, "postgresql")
def _rfc3339_pg(element: Rfc3339, compiler: SQLCompiler, **kw: Any) -> str:
    column = compiler.process(element.column, **kw)
    return f"to_char({column} AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')"


@compiles(Rfc3339)
def _rfc3339_sqlite(element: Rfc3339, compiler: SQLCompiler, **kw: Any) -> str:
    # Stored as naive UTC text; %f is seconds with milliseconds, cut as Python cuts them. A
    # literal, not text: its percent signs are then escaped as the paramstyle needs.
    layout = compiler.render_literal_value("%Y-%m-%dT%H:%M:%fZ", String())
    return f"strftime({layout}, {compiler.process(element.column, **kw)})"


def rfc3339(column: ColumnElement[Any]) -> ColumnElement[str]:
    return Rfc3339(column)


class SignedCursor(ColumnElement[str]):
    inherit_cache = True
    type = String()
    _traverse_internals = [("position", InternalTraversal.dp_clauseelement)]

    def __init__(self, position: ColumnElement[Any]) -> None:
        self.position = position


_INNER = bindparam("cursor_inner", type_=LargeBinary())
_OUTER = bindparam("cursor_outer", type_=LargeBinary())
_SCOPE = bindparam("cursor_scope", type_=LargeBinary())
_KEY = bindparam("cursor_key", type_=LargeBinary())


@compiles(SignedCursor, "postgresql")
def _cursor_pg(element: SignedCursor, compiler: SQLCompiler, **kw: Any) -> str:
    payload = f"convert_to({compiler.process(element.position, **kw)}, 'UTF8')"
    inner, outer, scope = (compiler.process(b, **kw) for b in (_INNER, _OUTER, _SCOPE))
    digest = f"sha256({outer} || sha256({inner} || {scope} || {payload}))"
    mac = f"substring({digest} FROM 1 FOR {CURSOR_MAC_BYTES})"
    # encode() breaks base64 into lines of 76 characters; cursors are URL-safe, unpadded.
    # Three replace() calls, not one translate(): translate reads its text character by
    # character, which cost more than the two hashes (tests/db/test_json_answers.py).
    encoded = f"encode({payload} || {mac}, 'base64')"
    url_safe = f"replace(replace(replace({encoded}, E'\\n', ''), '+', '-'), '/', '_')"
    return f"rtrim({url_safe}, '=')"


@compiles(SignedCursor)
def _cursor_sqlite(element: SignedCursor, compiler: SQLCompiler, **kw: Any) -> str:
    key, scope = compiler.process(_KEY, **kw), compiler.process(_SCOPE, **kw)
    return f"sign_cursor({key}, {scope}, {compiler.process(element.position, **kw)})"


def signed_cursor(position: ColumnElement[Any]) -> ColumnElement[str]:
    return SignedCursor(position)


def sign_cursor(key: bytes, scope: bytes, position: str) -> str:
    """A position and its truncated HMAC, base64url without padding: the cursor format
    (domain/pagination.py)."""
    payload = position.encode()
    mac = hmac.digest(key, scope + payload, "sha256")[:CURSOR_MAC_BYTES]
    return base64.urlsafe_b64encode(payload + mac).decode().rstrip("=")


def cursor_parameters(key: bytes, scope: bytes) -> dict[str, bytes]:
    """The bound values `signed_cursor` reads: HMAC's two pads of the key (PostgreSQL),
    the key itself (SQLite's function) and the workspace's scope."""
    inner, outer = _pads(key)
    return {"cursor_inner": inner, "cursor_outer": outer, "cursor_key": key, "cursor_scope": scope}


@functools.lru_cache(maxsize=4)  # one cursor key per deployment (a rotation makes two)
def _pads(key: bytes) -> tuple[bytes, bytes]:
    block = hashlib.sha256(key).digest() if len(key) > _BLOCK else key
    block = block.ljust(_BLOCK, b"\x00")
    return bytes(b ^ 0x36 for b in block), bytes(b ^ 0x5C for b in block)


def _sign_in_sqlite(key: bytes, scope: bytes, position: str | None) -> str | None:
    # NULL in, NULL out, as SQL's own functions do (an empty page has no end cursor).
    return None if position is None else sign_cursor(key, scope, position)


def register_functions(connection: sqlite3.Connection) -> None:
    """The functions compiled answers call on SQLite."""
    connection.create_function("sign_cursor", 3, _sign_in_sqlite, deterministic=True)


def as_text(value: ColumnElement[Any]) -> ColumnElement[str]:
    """The answer as text (PostgreSQL's `json` as its text: nothing to decode)."""
    return cast(value, Text)


# How SQLite refuses a statement nested deeper than it parses (before 3.46 its parser's
# stack holds 100 entries: a compiled object nested seven deep is over) or whose expression
# tree is too deep; PostgreSQL's statement_too_complex ("stack depth limit exceeded").
_TOO_DEEP_SQLITE = ("parser stack overflow", "Expression tree is too large")
_TOO_DEEP_POSTGRES = "54001"


def too_deep(error: DBAPIError) -> bool:
    """Whether the database refused a statement for how deep it nests, whatever the data."""
    cause = error.orig
    if isinstance(cause, sqlite3.OperationalError):
        return str(cause).startswith(_TOO_DEEP_SQLITE)
    cause = getattr(cause, "driver_exception", cause)
    return getattr(cause, "sqlstate", None) == _TOO_DEEP_POSTGRES
