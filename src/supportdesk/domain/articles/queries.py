"""Reading articles: by id, lists in creation order, and full-text search by relevance."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from sqlalchemy import Select, and_, bindparam, func, or_, select

from supportdesk.db import Database
from supportdesk.db.search import Search
from supportdesk.db.tables import articles
from supportdesk.domain.articles.models import (
    ARTICLE_COLUMNS,
    STATUSES,
    Article,
    ArticleFilter,
    ArticleHit,
    article_of,
)
from supportdesk.domain.articles.search import ARTICLE_SEARCH
from supportdesk.domain.errors import InvalidArgument
from supportdesk.domain.full_text import relevance_position, search_words
from supportdesk.domain.lists import (
    CreationOrder,
    ListQuery,
    count_of,
    page_limit,
    workspace_condition,
)
from supportdesk.domain.pagination import Page, PageRequest, page_of
from supportdesk.domain.per_parent import ById

_NOT_OURS = "`after` is not a cursor of this list."


_ARTICLES = ById(ARTICLE_COLUMNS, Article)


async def get_articles(db: Database, workspace_id: str, ids: Sequence[str]) -> dict[str, Article]:
    """Articles by id, one statement for any number of them."""
    return await _ARTICLES.fetch(db, workspace_id, ids)


def _status(where: ArticleFilter) -> str | None:
    if where.status is None:
        return None
    status = where.status.strip().lower()
    if status not in STATUSES:
        raise InvalidArgument(f"Unknown article status {where.status!r}: draft or published.")
    return status


def _search(workspace_id: str, where: ArticleFilter) -> Search | None:
    words = search_words(where.query)
    return ARTICLE_SEARCH.search(workspace_id, words) if words else None


def _filter_values(workspace_id: str, where: ArticleFilter) -> dict[str, Any]:
    values: dict[str, Any] = {"workspace_id": workspace_id}
    status = _status(where)
    if status is not None:
        values["list_status"] = status
    return values


def _filtered(query: Select[Any], names: Collection[str], found: Search | None) -> Select[Any]:
    query = query.where(workspace_condition(articles.c.workspace_id))
    if "list_status" in names:
        query = query.where(articles.c.status == bindparam("list_status"))
    if found is not None:
        query = query.select_from(found.source).where(found.condition)
    return query


def _count(names: Collection[str], found: Search | None) -> Select[Any]:
    return _filtered(select(func.count()).select_from(articles), names, found)


def _ranked(page: PageRequest, names: Collection[str], found: Search) -> Select[Any]:
    """A page of the search's matches, most relevant first, then oldest first; each row
    is ARTICLE_COLUMNS and the score."""
    scored = _filtered(select(*ARTICLE_COLUMNS, found.score.label("score")), names, found)
    ranked = select(scored.subquery())
    position = ranked.selected_columns
    if page.after:
        score, after_id = relevance_position(page.after, _NOT_OURS)
        ranked = ranked.where(
            or_(position.score < score, and_(position.score == score, position.id > after_id))
        )
    return ranked.order_by(position.score.desc(), position.id).limit(page_limit(page))


_LIST = CreationOrder(articles, ARTICLE_COLUMNS, lambda query, names: _filtered(query, names, None))


def list_query(workspace_id: str, page: PageRequest, where: ArticleFilter) -> ListQuery:
    """One page of the list (plus one row that says whether there is more) and the count
    of what it holds: in creation order, or for a search most relevant first."""
    values = _filter_values(workspace_id, where)
    found = _search(workspace_id, where)
    if found is not None:  # its words are in its SQL: built for this request alone
        counted = tuple(values)
        return ListQuery(
            lambda: _ranked(page, counted, found),
            lambda: _count(counted, found),
            values,
        )
    if page.after and ":" in page.after:
        raise InvalidArgument(_NOT_OURS)
    return _LIST.query(page, values)


async def list_articles(
    db: Database, workspace_id: str, page: PageRequest, where: ArticleFilter
) -> Page[ArticleHit]:
    """Articles in creation order; with a search `query`, those matching every word, most
    relevant first, then oldest first. Search pages continue after (relevance, id)."""
    query = list_query(workspace_id, page, where)
    async with db.read() as connection:
        rows = (await connection.execute(query.rows, query.values)).mappings().all()
    if query.shape is not None:  # no search: creation order
        return page_of([ArticleHit(article_of(row)) for row in rows], page.first)
    hits = [ArticleHit(article_of(row), float(row["score"])) for row in rows]
    return page_of(hits, page.first)


async def count_articles(db: Database, workspace_id: str, where: ArticleFilter) -> int:
    """How many articles the list (or search) holds."""
    return await count_of(db, list_query(workspace_id, PageRequest(0, None), where))
