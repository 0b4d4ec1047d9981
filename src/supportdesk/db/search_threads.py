"""The statements that change one field of a row in a full-text index of handed-over
texts (`SearchIndex(from_columns=False)`, db/search.py), each built once per backend and
field: the row is found by its key, and the field's other texts are never read by the
writer nor sent again.

- SQLite: the FTS5 table keeps its own copy of each field, so a field is rewritten in
  place (`body = body || char(10) || :text`); FTS5 takes the old words out and the new
  ones in. The FTS5 row is found through the table's `rowid` column.
- PostgreSQL: the row's one tsvector holds every field, each under its own weight, so a
  field's words are added (`vector || setweight(to_tsvector(:text), 'B')`), taken out or
  carried to another row by weight (`ts_filter`). A vector grows only while it stays
  under `VECTOR_ROOM` (PostgreSQL refuses a tsvector of more than 1 MB of lexemes and
  positions): past it, the row keeps the words it has.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from sqlalchemy import TextClause, text

if TYPE_CHECKING:
    from supportdesk.db.search import SearchField, SearchIndex

# Room for one PostgreSQL tsvector, in bytes as pg_column_size counts them (the column is
# stored uncompressed, so that is its true size): under the 2**20 - 1 bytes its lexemes
# and positions may take, with a margin for a short text `set_text` puts in a full one.
VECTOR_ROOM = 1_000_000

Statements = dict[tuple[str, str], TextClause]


class ThreadStatements:
    """For each backend and field: `append` a text to the field, `set_text` it anew,
    `move` another row's field onto the end of it, and `empty` it."""

    def __init__(self, index: SearchIndex) -> None:
        sqlite, postgresql = _SqliteSql(index), _PostgresSql(index)
        self.append = _each_field(index, sqlite.append, postgresql.append)
        self.set_text = _each_field(index, sqlite.set_text, postgresql.set_text)
        self.move = _each_field(index, sqlite.move, postgresql.move)
        self.empty = _each_field(index, sqlite.empty, postgresql.empty)


def _each_field(
    index: SearchIndex,
    sqlite: Callable[[SearchField], str],
    postgresql: Callable[[SearchField], str],
) -> Statements:
    built: Statements = {}
    for field in index.fields:
        built["sqlite", field.name] = text(sqlite(field))
        built["postgresql", field.name] = text(postgresql(field))
    return built


class _SqliteSql:
    def __init__(self, index: SearchIndex) -> None:
        self.fts = index.fts
        table, rowid = index.table.name, index.rowid.name
        self.row = f"(SELECT {table}.{rowid} FROM {table} WHERE {index.where_key('key')})"
        self.source_row = f"(SELECT {table}.{rowid} FROM {table} WHERE {index.where_key('from')})"

    def append(self, field: SearchField) -> str:
        name = field.name
        return (
            f"UPDATE {self.fts} SET {name} = {name} || char(10) || :text WHERE rowid = {self.row}"
        )

    def set_text(self, field: SearchField) -> str:
        return f"UPDATE {self.fts} SET {field.name} = :text WHERE rowid = {self.row}"

    def move(self, field: SearchField) -> str:
        name = field.name
        moved = (
            f"(SELECT moved.{name} FROM {self.fts} AS moved WHERE moved.rowid = {self.source_row})"
        )
        # coalesce: a source without an entry adds nothing (NULL would empty the target).
        return (
            f"UPDATE {self.fts} SET {name} = {name} || coalesce(char(10) || {moved}, '') "
            f"WHERE rowid = {self.row}"
        )

    def empty(self, field: SearchField) -> str:
        return f"UPDATE {self.fts} SET {field.name} = '' WHERE rowid = {self.row}"


class _PostgresSql:
    def __init__(self, index: SearchIndex) -> None:
        self.index = index
        self.table = index.table.name
        self.language = f"'{index.language}'::regconfig"
        self.vector = f"coalesce({self.table}.{index.vector}, ''::tsvector)"

    def _update(self, value: str, source: str = "") -> str:
        where = self.index.where_key("key")
        return f"UPDATE {self.table} SET {self.index.vector} = {value}{source} WHERE {where}"

    def _others(self, field: SearchField) -> str:
        """The row's vector without the field's words."""
        weights = ",".join(f.weight.lower() for f in self.index.fields if f is not field)
        return f"ts_filter({self.vector}, '{{{weights}}}')" if weights else "''::tsvector"

    def _grown(self, added: str) -> str:
        """The vector with `added` at its end, while there is room for it."""
        return (
            f"CASE WHEN pg_column_size({self.vector}) + pg_column_size({added}) < {VECTOR_ROOM} "
            f"THEN {self.vector} || {added} ELSE {self.table}.{self.index.vector} END"
        )

    def append(self, field: SearchField) -> str:
        # Computed once, in FROM, though the guard reads it twice.
        added = f"setweight(to_tsvector({self.language}, :text), '{field.weight}')"
        return self._update(
            self._grown("addition.added"), f" FROM (SELECT {added} AS added) AS addition"
        )

    def set_text(self, field: SearchField) -> str:
        added = f"setweight(to_tsvector({self.language}, :text), '{field.weight}')"
        return self._update(f"{added} || {self._others(field)}")

    def move(self, field: SearchField) -> str:
        moved = f"coalesce(moved.{self.index.vector}, ''::tsvector)"
        own = f"ts_filter({moved}, '{{{field.weight.lower()}}}')"
        source = (
            f" FROM (SELECT {own} AS added FROM {self.table} AS moved "
            f"WHERE {self.index.where_key('from', alias='moved')}) AS addition"
        )
        return self._update(self._grown("addition.added"), source)

    def empty(self, field: SearchField) -> str:
        return self._update(self._others(field))
