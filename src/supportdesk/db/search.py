"""Full-text search over one table's rows, written once and run on either backend.

A `SearchIndex` says what is searched: a table, the texts of each row (`fields`, in order)
and where each backend keeps the index:
- SQLite: an FTS5 table (`fts`; porter stemming over unicode61) whose row ids are an
  integer column of the table (`rowid`): FTS5 needs an integer row id that VACUUM keeps,
  which a text primary key does not give.
- PostgreSQL: a tsvector column of the table (`vector`; the `language` configuration, each
  field weighted by its `weight`) with a GIN index.

`index.search(workspace_id, words)` hands a statement the three parts of a search, each
compiled to its backend's SQL, so that the domain writes one statement for both: FROM the
table with its index (`source`), the workspace's rows matching every word, stemmed
(`condition`), and their relevance (`score`, higher is better). PostgreSQL drops stop
words ("the", "your") from the query; SQLite matches them like any word. Relevance depends
on the row alone, never on the rest of the index, which holds every workspace: on SQLite
it counts the query's matches in each field, one in a field weighing its `boost` (FTS5's
`highlight` marks each match with two characters, so the growth of the highlighted text
counts them; bm25 would weigh words by their rarity in the whole index, and one
workspace's writes would move another's ranking); on PostgreSQL it is `ts_rank`.

Writers keep the index in step inside their own transaction (`next_rowids`, `add`,
`replace`, `remove`), each a statement built once and run on the transaction's driver
connection; nothing is hidden in triggers. Texts come from one of two places:
- `from_columns=True`: the table's own columns, named as the fields. SQLite's FTS5 table
  reads them from the table (external content), so removing an entry needs the texts it
  was indexed with; PostgreSQL's column is generated, computed by the database in the
  statement that writes the row, and the writers do nothing there.
- `from_columns=False`: texts the writer hands over (say a subject and the bodies of a
  thread). SQLite's FTS5 table keeps its own copy; PostgreSQL's column is an ordinary one
  that `add` and `replace` set, finding the row by its `key` columns. Such an index also
  changes one field of a row found by its key, without the writer reading or handing over
  the rest (`append` a thread's new message, `set_text` a new subject, `move` one row's
  field onto the end of another's); each field has a weight of its own, which is how
  PostgreSQL tells one field's words from another's in the row's one vector.

SQLite's FTS5 table holds every workspace's rows, and the workspace is part of the match:
the FTS5 table's last column (`workspace_id`) holds the row's workspace as one token
(`workspace_token`), and a search asks FTS5 for that token AND its words, so FTS5 hands
over the workspace's own matches alone. Were the workspace only a condition on what FTS5
found, every other workspace's match would be read and dropped, and the time a search
takes would tell how many they hold. An index of the table's own columns has the token in
the index and the id in the table: FTS5 reads the table's `workspace_id` only to show
that column, which no statement asks for (its 'rebuild' command would index the ids:
rebuild such an index as migration 0016 does). The statement still compares the table's
workspace_id with the workspace's, as every statement does; on PostgreSQL that comparison
is all there is. Each match then finds its row by its row id in the table's unique index
on it (`rowid_index`), which the statement names, so that SQLite never reads the table
whole, whatever its statistics say (`_index_first`).

PostgreSQL holds at most 1 MB of lexemes and positions in one tsvector: a row whose
vector would grow past `VECTOR_ROOM` (search_threads.py) keeps the words it has and takes
no more. SQLite has no such bound.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property, reduce
from typing import Any

from sqlalchemy import (
    Column,
    ColumnElement,
    Double,
    FromClause,
    Insert,
    Join,
    MetaData,
    Select,
    String,
    Table,
    Text,
    TextClause,
    Update,
    bindparam,
    case,
    column,
    func,
    insert,
    literal_column,
    select,
    table,
    text,
)
from sqlalchemy.dialects.postgresql import TSVECTOR
from sqlalchemy.engine import Dialect
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.elements import BindParameter
from sqlalchemy.sql.visitors import InternalTraversal
from sqlalchemy.types import NullType, TypeDecorator

from supportdesk.db.connection import Connection
from supportdesk.db.search_threads import VECTOR_ROOM, ThreadStatements


@dataclass(frozen=True, slots=True)
class SearchField:
    """One text of a row: its column in the FTS5 table (and, with `from_columns`, in the
    table), its PostgreSQL weight (A, the heaviest, to D) and its SQLite boost (how many
    matches elsewhere one match here is worth)."""

    name: str
    weight: str
    boost: float = 1.0


@dataclass(frozen=True, slots=True)
class SearchEntry:
    """One row's place in an index: its SQLite row id (None on PostgreSQL), its key (the
    values of the index's `key` columns) and its texts, one per field."""

    rowid: int | None
    key: tuple[Any, ...]
    texts: tuple[str, ...]


class SearchWords(TypeDecorator[Sequence[str]]):
    """The words of a query, bound as one value in the syntax of the backend's matcher."""

    impl = String
    cache_ok = True

    def process_bind_param(self, value: Sequence[str] | None, dialect: Dialect) -> str | None:
        if value is None:
            return None
        if dialect.name == "sqlite":
            # Each word an FTS5 string, never an operator; AND between them.
            return " AND ".join('"' + word.replace('"', '""') + '"' for word in value)
        # plainto_tsquery ANDs the words after stemming them (and dropping stop words).
        return " ".join(value)


# The FTS5 table's last column: the row's workspace as one token (see the module's description).
WORKSPACE_COLUMN = "workspace_id"


def workspace_token(workspace_id: str) -> str:
    """A workspace's token in SQLite's FTS5 tables: the hex digits of its id, and a 0 (in
    SQL: `hex(workspace_id) || '0'`). Letters and digits, so the tokenizer keeps it whole;
    ending in a digit, so the stemmer, which only takes endings of letters off, leaves it
    as it is: one token per workspace, never another's."""
    return workspace_id.encode().hex().upper() + "0"


class WorkspaceToken(TypeDecorator[str]):
    """A workspace id, bound as its token in FTS5's syntax: a string, never an operator."""

    impl = String
    cache_ok = True

    def process_bind_param(self, value: str | None, dialect: Dialect) -> str | None:
        return None if value is None else f'"{workspace_token(value)}"'


def workspace_param(name: str) -> BindParameter[str]:
    """A bound parameter `name` for the workspace of a search, given when the statement
    runs (for a `Read` built once, with `words_param`)."""
    return bindparam(name, type_=WorkspaceToken())


def words_param(name: str) -> BindParameter[Sequence[str]]:
    """A bound parameter `name` for the words of a query, given when the statement runs
    (for a `Read` built once)."""
    return bindparam(name, type_=SearchWords())


@dataclass(frozen=True, slots=True)
class Search:
    """The parts of one search. `score` may only be read in a statement that selects
    FROM `source` WHERE `condition`."""

    source: FromClause
    condition: ColumnElement[bool]
    score: ColumnElement[float]


@dataclass(frozen=True, eq=False)
class SearchIndex:
    """A full-text index over `table`'s rows (see the module's description). Its names
    are written into SQL: they come from the code, never from a request."""

    table: Table
    key: tuple[Column[Any], ...]  # finds a row (workspace first, for a distributed database)
    rowid: Column[Any]  # the row's integer id in SQLite's FTS5 table
    fields: tuple[SearchField, ...]  # in the order of the FTS5 table's columns
    fts: str  # SQLite's FTS5 table
    vector: str  # PostgreSQL's tsvector column of `table`
    from_columns: bool = True
    language: str = "english"

    def __post_init__(self) -> None:
        names = [self.fts, self.vector, self.language, *(f.name for f in self.fields)]
        if not all(name.isidentifier() for name in names):
            raise ValueError(f"not SQL identifiers: {names}")
        weights = [f.weight for f in self.fields]
        if not set(weights) <= set("ABCD"):
            raise ValueError("a field's weight is one of A, B, C, D")
        if not self.from_columns and len(set(weights)) != len(weights):
            raise ValueError("each field of an index of handed-over texts weighs its own")
        if WORKSPACE_COLUMN in names or self.key[0].name != WORKSPACE_COLUMN:
            raise ValueError(f"the key starts with {WORKSPACE_COLUMN}, and no field is so named")

    @cached_property
    def fts_table(self) -> Any:
        return table(self.fts, column("rowid"), *(column(f.name) for f in self.fields))

    @cached_property
    def source(self) -> FromClause:
        """FROM the table with its index."""
        return _WithIndex(self)

    @property
    def rowid_index(self) -> str:
        """SQLite's unique index on `rowid`, which finds the row of each FTS5 match
        (migrations 0002 and 0013 name it so)."""
        return f"ix_{self.table.name}_{self.rowid.name}"

    def search(
        self,
        workspace_id: str | BindParameter[str],
        words: Sequence[str] | BindParameter[Sequence[str]],
    ) -> Search:
        """The rows of the workspace holding every one of `words` (at least one; as
        values, or bound later with `workspace_param` and `words_param`). The caller still
        compares the table's workspace_id, which is all PostgreSQL's condition has."""
        if not isinstance(workspace_id, BindParameter):
            workspace_id = bindparam(None, workspace_id, type_=WorkspaceToken())
        if not isinstance(words, BindParameter):
            if isinstance(words, str) or not words:
                raise ValueError("a search takes a non-empty list of words")
            words = bindparam(None, tuple(words), type_=SearchWords())
        return Search(self.source, _Matches(self, words, workspace_id), _Score(self, words))

    async def next_rowids(self, connection: Connection, count: int) -> list[int | None]:
        """SQLite row ids for `count` new rows (None on PostgreSQL). Writers hold SQLite's
        only write lock (BEGIN IMMEDIATE), so max + 1 cannot be taken twice."""
        if connection.dialect.name != "sqlite":
            return [None] * count
        [(last,)] = await connection.rows(self._last_rowid, {})
        return [int(last or 0) + offset for offset in range(1, count + 1)]

    @cached_property
    def _last_rowid(self) -> Select[Any]:
        return select(func.coalesce(func.max(self.rowid), 0))

    async def add(self, connection: Connection, entries: Sequence[SearchEntry]) -> None:
        """Index rows that are not in the index yet."""
        await self._run(connection, self._add_statement(connection.dialect.name), entries)

    async def insert(
        self, connection: Connection, row: Mapping[str, Any], entry: SearchEntry
    ) -> None:
        """Insert one row of the table (`row`: its values by column) and index it. Where
        the index of handed-over texts is a column of the row (PostgreSQL), the INSERT
        writes it: setting it afterwards wrote the new row twice, every index included."""
        if connection.dialect.name == "sqlite" or self.from_columns:
            await connection.rows(self._insert, row)
            await self.add(connection, [entry])
            return
        texts = {f"index_{f.name}": text for f, text in zip(self.fields, entry.texts, strict=True)}
        await connection.write(self._insert_with_vector(frozenset(row)), {**row, **texts})

    async def remove(self, connection: Connection, entries: Sequence[SearchEntry]) -> None:
        """Take rows out of the index; each entry holds the texts it was indexed with."""
        await self._run(connection, self._remove_statement(connection.dialect.name), entries)

    async def replace(
        self,
        connection: Connection,
        before: Sequence[SearchEntry],
        after: Sequence[SearchEntry],
    ) -> None:
        """Index rows with new texts (`after`) in place of those they had (`before`)."""
        if connection.dialect.name == "sqlite":
            await self.remove(connection, before)
        await self.add(connection, after)

    async def append(
        self, connection: Connection, field: str, key: tuple[Any, ...], text: str
    ) -> None:
        """Add `text` to the end of one field of the row found by `key` (a thread's new
        message), without reading what the field holds."""
        statement = self._thread_sql.append[connection.dialect.name, field]
        await connection.run_many(statement, [{**_keys("key", key), "text": text}])

    def appending(self, field: str, build: Callable[[Table], Update]) -> AppendingUpdate:
        """An UPDATE of one row, `build(table)`, that also appends a text to `field` of the
        row's index (`AppendingUpdate.run`): where the index is a column of the row
        (PostgreSQL) in the same statement, so the row is written once, not twice with
        every index of the table; elsewhere in a statement of its own."""
        if self.from_columns:
            raise ValueError("only an index of handed-over texts changes one field alone")
        weight = next(f.weight for f in self.fields if f.name == field)
        with_vector = self._table_with_vector
        vector = with_vector.c[self.vector]
        language: ColumnElement[Any] = literal_column(f"'{self.language}'::regconfig")
        words = func.to_tsvector(language, bindparam("index_text", type_=Text()))
        addition = select(
            func.setweight(words, literal_column(f"'{weight}'")).label("added")
        ).subquery("addition")
        current = func.coalesce(vector, literal_column("''::tsvector"))
        room = func.pg_column_size(current) + func.pg_column_size(addition.c.added)
        grown = case((room < VECTOR_ROOM, current.op("||")(addition.c.added)), else_=vector)
        return AppendingUpdate(
            self, field, build(self.table), build(with_vector).values({vector: grown})
        )

    @cached_property
    def _table_with_vector(self) -> Table:
        # The table as PostgreSQL has it: the shared definition leaves the index's column
        # out, as SQLite has none.
        columns = [Column(c.name, c.type, primary_key=c.primary_key) for c in self.table.columns]
        return Table(self.table.name, MetaData(), *columns, Column(self.vector, TSVECTOR()))

    async def set_text(
        self, connection: Connection, field: str, key: tuple[Any, ...], text: str
    ) -> None:
        """Index a new short `text` (a subject) in one field of the row found by `key`, in
        place of the field's old one; the other fields keep theirs."""
        statement = self._thread_sql.set_text[connection.dialect.name, field]
        await connection.run_many(statement, [{**_keys("key", key), "text": text}])

    async def move(
        self, connection: Connection, field: str, source: tuple[Any, ...], target: tuple[Any, ...]
    ) -> None:
        """Add what one field of the `source` row holds to the end of the `target` row's,
        and empty the source's (a thread that joins another)."""
        dialect = connection.dialect.name
        keys = {**_keys("key", target), **_keys("from", source)}
        await connection.run_many(self._thread_sql.move[dialect, field], [keys])
        empty = self._thread_sql.empty[dialect, field]
        await connection.run_many(empty, [_keys("key", source)])

    @cached_property
    def _thread_sql(self) -> ThreadStatements:
        if self.from_columns:
            raise ValueError("only an index of handed-over texts changes one field alone")
        return ThreadStatements(self)

    async def _run(
        self,
        connection: Connection,
        statement: TextClause | None,
        entries: Sequence[SearchEntry],
    ) -> None:
        if statement is not None and entries:
            await connection.run_many(statement, [self._parameters(entry) for entry in entries])

    def _parameters(self, entry: SearchEntry) -> dict[str, Any]:
        keys = _keys("key", entry.key)
        texts = {f.name: value for f, value in zip(self.fields, entry.texts, strict=True)}
        token = workspace_token(entry.key[0])  # the key's first column is the workspace
        return {"rowid": entry.rowid, **keys, **texts, WORKSPACE_COLUMN: token}

    def _add_statement(self, dialect: str) -> TextClause | None:
        if dialect == "sqlite":
            return self._fts_insert
        return None if self.from_columns else self._vector_update

    def _remove_statement(self, dialect: str) -> TextClause | None:
        if dialect == "sqlite":
            return self._fts_delete if self.from_columns else self._fts_delete_row
        return None if self.from_columns else self._vector_clear

    @cached_property
    def _fts_columns(self) -> tuple[str, str]:
        """The FTS5 table's columns and their parameters, as SQL lists."""
        names = [*(f.name for f in self.fields), WORKSPACE_COLUMN]
        return ", ".join(names), ", ".join(f":{name}" for name in names)

    @cached_property
    def _fts_insert(self) -> TextClause:
        names, values = self._fts_columns
        return text(f"INSERT INTO {self.fts} (rowid, {names}) VALUES (:rowid, {values})")

    @cached_property
    def _fts_delete(self) -> TextClause:
        # External content: FTS5 removes the words of the texts it is given.
        names, values = self._fts_columns
        return text(
            f"INSERT INTO {self.fts} ({self.fts}, rowid, {names}) "
            f"VALUES ('delete', :rowid, {values})"
        )

    @cached_property
    def _fts_delete_row(self) -> TextClause:
        return text(f"DELETE FROM {self.fts} WHERE rowid = :rowid")

    @cached_property
    def _insert(self) -> Insert:
        return insert(self.table)

    def _vector_of(self, prefix: str = "") -> str:
        language = f"'{self.language}'::regconfig"
        return " || ".join(
            f"setweight(to_tsvector({language}, :{prefix}{f.name}), '{f.weight}')"
            for f in self.fields
        )

    @functools.cache  # noqa: B019 - one per column set; indexes live as long as the process
    def _insert_with_vector(self, columns: frozenset[str]) -> TextClause:
        names = sorted(columns)
        values = ", ".join(f":{name}" for name in names)
        return text(
            f"INSERT INTO {self.table.name} ({', '.join(names)}, {self.vector}) "
            f"VALUES ({values}, {self._vector_of('index_')})"
        ).bindparams(*(bindparam(name, type_=self.table.c[name].type) for name in names))

    @cached_property
    def _vector_update(self) -> TextClause:
        vector = self._vector_of()
        return text(f"UPDATE {self.table.name} SET {self.vector} = {vector} WHERE {self._where}")

    @cached_property
    def _vector_clear(self) -> TextClause:
        return text(f"UPDATE {self.table.name} SET {self.vector} = NULL WHERE {self._where}")

    @property
    def _where(self) -> str:
        return self.where_key()

    def where_key(self, prefix: str = "key", alias: str | None = None) -> str:
        """SQL: the row (of `table`, or of its `alias`) whose key is bound as `prefix_n`."""
        name = alias or self.table.name
        return " AND ".join(f"{name}.{key.name} = :{prefix}_{n}" for n, key in enumerate(self.key))


@dataclass(frozen=True, eq=False)
class AppendingUpdate:
    """`SearchIndex.appending`: one UPDATE built for each way the index is kept."""

    index: SearchIndex
    field: str
    plain: Update
    with_vector: Update

    async def run(
        self,
        connection: Connection,
        parameters: Mapping[str, Any],
        key: tuple[Any, ...],
        text: str,
    ) -> list[tuple[Any, ...]]:
        """The UPDATE's rows (its RETURNING); `text` is appended to the field of the row
        found by `key` (the row the UPDATE changes)."""
        if connection.dialect.name == "sqlite":
            rows = await connection.rows(self.plain, parameters)
            await self.index.append(connection, self.field, key, text)
            return rows
        return await connection.rows(self.with_vector, {**parameters, "index_text": text})


def _keys(prefix: str, key: tuple[Any, ...]) -> dict[str, Any]:
    return {f"{prefix}_{n}": value for n, value in enumerate(key)}


class _WithIndex(Join):
    """SQLite's FTS5 table (left) joined to the table (right); on PostgreSQL, whose index
    is a column of the table, the table alone."""

    inherit_cache = True
    _traverse_internals = [*Join._traverse_internals, ("index", InternalTraversal.dp_plain_obj)]

    def __init__(self, index: SearchIndex) -> None:
        fts = index.fts_table
        # A range of one row id, not `=`: see _index_first.
        super().__init__(fts, index.table, index.rowid.between(fts.c.rowid, fts.c.rowid))
        self.index = index


@compiles(_WithIndex)
def _index_first(element: _WithIndex, compiler: SQLCompiler, **kw: Any) -> str:
    # SQLite's planner makes the left of a CROSS JOIN the outer loop: a search reads the
    # index's matches, then their rows. Left to choose, it may walk a whole workspace's
    # rows in an index's order (ORDER BY id LIMIT n) and probe FTS5 for each, which costs
    # what the workspace holds, not what the search finds.
    # Each match's row is then found in the unique index on the row id: named (INDEXED
    # BY), so that no statistics lead the planner to another index (walking a workspace's
    # rows for every match), and asked for as a range of one id (BETWEEN), not with `=`.
    # On an `=` lookup, statistics (ANALYZE) that call the table smaller than the matches
    # the planner expects make SQLite (3.40, for one) first read the whole table, every
    # workspace's rows, into a Bloom filter of those the other conditions keep: the search
    # would cost what all the workspaces hold. SQLite builds no such filter for a range.
    # The left and right are bare table names: the first " JOIN " and " ON " are the join's.
    visit_join: Callable[..., str] = compiler.visit_join  # the usual JOIN (untyped upstream)
    left, _, joined = visit_join(element, **kw).partition(" JOIN ")
    right, _, condition = joined.partition(" ON ")
    return f"{left} CROSS JOIN {right} INDEXED BY {element.index.rowid_index} ON {condition}"


@compiles(_WithIndex, "postgresql")
def _table_alone(element: _WithIndex, compiler: SQLCompiler, **kw: Any) -> str:
    return compiler.process(element.right, **kw)


class _SearchPart(ColumnElement[Any]):
    inherit_cache = True
    _traverse_internals = [
        ("index", InternalTraversal.dp_plain_obj),
        ("words", InternalTraversal.dp_clauseelement),
    ]

    def __init__(self, index: SearchIndex, words: BindParameter[Sequence[str]]) -> None:
        self.index = index
        self.words = words

    def fts_table(self) -> ColumnElement[Any]:
        return literal_column(self.index.fts)

    def vector(self) -> ColumnElement[Any]:
        return literal_column(f"{self.index.table.name}.{self.index.vector}")

    def tsquery(self) -> ColumnElement[Any]:
        language: ColumnElement[Any] = literal_column(f"'{self.index.language}'::regconfig")
        return func.plainto_tsquery(language, self.words)


class _Matches(_SearchPart):
    inherit_cache = True
    _traverse_internals = [
        *_SearchPart._traverse_internals,
        ("workspace", InternalTraversal.dp_clauseelement),
    ]
    # Not Boolean: SQLite would be handed `(… MATCH ?) = 1`, which FTS5 cannot use.
    type = NullType()

    def __init__(
        self,
        index: SearchIndex,
        words: BindParameter[Sequence[str]],
        workspace: BindParameter[str],
    ) -> None:
        super().__init__(index, words)
        self.workspace = workspace


class _Score(_SearchPart):
    inherit_cache = True
    type = Double()

    def matches(self, position: int, search_field: SearchField) -> ColumnElement[Any]:
        """How many matches of the query one field of the row holds."""
        index = self.index
        texts = index.table if index.from_columns else index.fts_table
        marked = func.highlight(
            self.fts_table(), literal_column(str(position)), func.char(1), func.char(2)
        )
        found = (func.length(marked) - func.length(texts.c[search_field.name])) / 2.0
        return found if search_field.boost == 1 else search_field.boost * found


@compiles(_Matches)
def _fts_match(element: _Matches, compiler: SQLCompiler, **kw: Any) -> str:
    # The workspace's token in its column AND every word in the fields:
    # `workspace_id : "…" AND {subject body} : ("printer" AND "toner")`.
    workspace = compiler.process(element.workspace, **kw)
    words = compiler.process(element.words, **kw)
    fields = " ".join(f.name for f in element.index.fields)
    query = f"'{WORKSPACE_COLUMN} : ' || {workspace} || ' AND {{{fields}}} : (' || {words} || ')'"
    return f"({element.index.fts} MATCH ({query}))"


@compiles(_Matches, "postgresql")
def _tsvector_match(element: _Matches, compiler: SQLCompiler, **kw: Any) -> str:
    return f"({compiler.process(element.vector().op('@@')(element.tsquery()), **kw)})"


@compiles(_Score)
def _fts_score(element: _Score, compiler: SQLCompiler, **kw: Any) -> str:
    counts = [element.matches(n, f) for n, f in enumerate(element.index.fields)]
    return compiler.process(reduce(lambda total, more: total + more, counts), **kw)


@compiles(_Score, "postgresql")
def _ts_rank(element: _Score, compiler: SQLCompiler, **kw: Any) -> str:
    return compiler.process(func.ts_rank(element.vector(), element.tsquery()), **kw)
