"""Reading articles: by id, lists in creation order, and full-text search by relevance."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Select, and_, func, or_, select

from supportdesk.db import Database
from supportdesk.db.connection import Connection
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


def _search(where: ArticleFilter) -> Search | None:
    words = search_words(where.query)
    return ARTICLE_SEARCH.search(words) if words else None


def _filtered(
    query: Select[Any], workspace_id: str, where: ArticleFilter, found: Search | None
) -> Select[Any]:
    query = query.where(articles.c.workspace_id == workspace_id)
    status = _status(where)
    if status is not None:
        query = query.where(articles.c.status == status)
    if found is not None:
        query = query.select_from(found.source).where(found.condition)
    return query


async def list_articles(
    connection: Connection, workspace_id: str, page: PageRequest, where: ArticleFilter
) -> Page[ArticleHit]:
    """Articles in creation order; with a search `query`, those matching every word, most
    relevant first, then oldest first. Search pages continue after (relevance, id)."""
    found = _search(where)
    if found is None:
        rows = await connection.execute(page_statement(workspace_id, page, where))
        return page_of([ArticleHit(article_of(row)) for row in rows.mappings()], page.first)
    scored = _filtered(
        select(*ARTICLE_COLUMNS, found.score.label("score")), workspace_id, where, found
    ).subquery()
    ranked = select(scored)
    if page.after:
        score, after_id = relevance_position(page.after, _NOT_OURS)
        ranked = ranked.where(
            or_(scored.c.score < score, and_(scored.c.score == score, scored.c.id > after_id))
        )
    rows = await connection.execute(
        ranked.order_by(scored.c.score.desc(), scored.c.id).limit(page.first + 1)
    )
    hits = [ArticleHit(article_of(row), float(row["score"])) for row in rows.mappings()]
    return page_of(hits, page.first)


def page_statement(workspace_id: str, page: PageRequest, where: ArticleFilter) -> Select[Any]:
    """One page of the list in creation order, when it is no search (plus one row that
    says whether there is more)."""
    query = _filtered(select(*ARTICLE_COLUMNS), workspace_id, where, None)
    if page.after:
        if ":" in page.after:
            raise InvalidArgument(_NOT_OURS)
        query = query.where(articles.c.id > page.after)
    return query.order_by(articles.c.id).limit(page.first + 1)


def is_search(where: ArticleFilter) -> bool:
    return _search(where) is not None


def count_statement(workspace_id: str, where: ArticleFilter) -> Select[Any]:
    """The statement that counts what the list (or search) holds."""
    found = _search(where)
    return _filtered(select(func.count()).select_from(articles), workspace_id, where, found)


async def count_articles(connection: Connection, workspace_id: str, where: ArticleFilter) -> int:
    """How many articles the list (or search) holds."""
    return int(await connection.scalar(count_statement(workspace_id, where)) or 0)
