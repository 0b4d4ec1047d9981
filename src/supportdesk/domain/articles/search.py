"""Full-text search over articles, one implementation per backend.

A query is split into words; every word must match, stemmed by the backend.
- SQLite: an external-content FTS5 table `articles_fts` (porter stemming over unicode61)
  whose row ids are `articles.search_rowid`. The writers in domain/articles/actions.py keep
  it in step inside their own transactions with `index` and `unindex` below; nothing is
  hidden in triggers. Relevance counts the query's words in the article, a word of the
  title weighing ten times one of the body (FTS5's `highlight` marks each match with two
  characters, so the growth of the highlighted text counts them). It depends on the article
  alone, like PostgreSQL's: the index is shared by every workspace, and bm25, which weighs
  words by their rarity in the whole index, let one workspace's writes move another's
  ranking.
- PostgreSQL: the generated column `articles.search_vector` (english configuration, title
  weighted A, body B; GIN index), computed by the database in the statement that writes
  the row. Relevance is ts_rank, which depends on the article alone. PostgreSQL drops
  english stop words ("the", "your") from the query; SQLite matches them like any word.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    ColumnElement,
    FromClause,
    column,
    func,
    literal_column,
    select,
    table,
    text,
)
from sqlalchemy.ext.asyncio import AsyncConnection

from supportdesk.db.tables import articles
from supportdesk.domain.errors import InvalidArgument

MAX_QUERY = 500
MAX_WORDS = 32
# Words as both backends' tokenizers see them: letters and digits; `_` separates.
_WORD = re.compile(r"[^\W_]+")

_fts = table("articles_fts", column("rowid"))
_fts_table: ColumnElement[Any] = literal_column("articles_fts")
_INDEX = text("INSERT INTO articles_fts (rowid, title, body) VALUES (:rowid, :title, :body)")
_UNINDEX = text(
    "INSERT INTO articles_fts (articles_fts, rowid, title, body) "
    "VALUES ('delete', :rowid, :title, :body)"
)


def search_words(query: str | None) -> list[str]:
    """The words of a search query; none means no search at all."""
    if query is None:
        return []
    if len(query) > MAX_QUERY:
        raise InvalidArgument(f"`query` may hold at most {MAX_QUERY} characters.")
    words = list(dict.fromkeys(_WORD.findall(query.lower())))
    if len(words) > MAX_WORDS:
        raise InvalidArgument(f"`query` may hold at most {MAX_WORDS} words.")
    return words


@dataclass(frozen=True, slots=True)
class Search:
    """How one backend finds the articles matching every word, and scores them (higher
    is more relevant)."""

    source: FromClause
    condition: ColumnElement[bool]
    score: ColumnElement[float]


def _matches(column_index: int, indexed: ColumnElement[str]) -> ColumnElement[Any]:
    """How many matches of the query one column of the article holds."""
    marked = func.highlight(
        _fts_table, literal_column(str(column_index)), func.char(1), func.char(2)
    )
    return (func.length(marked) - func.length(indexed)) / 2.0


def search_for(dialect: str, words: Sequence[str]) -> Search:
    if dialect == "sqlite":
        # Each word quoted: an FTS5 string, never an operator; juxtaposition is AND.
        expression = " AND ".join(f'"{word}"' for word in words)
        return Search(
            articles.join(_fts, _fts.c.rowid == articles.c.search_rowid),
            _fts_table.op("MATCH")(expression),
            10.0 * _matches(0, articles.c.title) + _matches(1, articles.c.body),
        )
    vector: ColumnElement[Any] = literal_column("articles.search_vector")
    # plainto_tsquery ANDs the words after stemming them (and dropping stop words).
    query = func.plainto_tsquery(literal_column("'english'::regconfig"), " ".join(words))
    return Search(articles, vector.op("@@")(query), func.ts_rank(vector, query))


async def next_search_rowids(connection: AsyncConnection, count: int) -> list[int | None]:
    """Row ids for `count` new articles in SQLite's index (None on PostgreSQL). Writers
    hold SQLite's only write lock (BEGIN IMMEDIATE), so max + 1 cannot be taken twice."""
    if connection.dialect.name != "sqlite":
        return [None] * count
    last = await connection.scalar(select(func.coalesce(func.max(articles.c.search_rowid), 0)))
    return [int(last or 0) + offset for offset in range(1, count + 1)]


async def index(
    connection: AsyncConnection, entries: Sequence[tuple[int | None, str, str]]
) -> None:
    """Add (rowid, title, body) entries to SQLite's index; PostgreSQL needs nothing."""
    if connection.dialect.name == "sqlite" and entries:
        await connection.execute(
            _INDEX,
            [{"rowid": rowid, "title": title, "body": body} for rowid, title, body in entries],
        )


async def unindex(connection: AsyncConnection, rowid: int | None, title: str, body: str) -> None:
    """Remove an entry from SQLite's index; it needs the values that were indexed."""
    if connection.dialect.name == "sqlite":
        await connection.execute(_UNINDEX, {"rowid": rowid, "title": title, "body": body})
