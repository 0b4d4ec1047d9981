"""Knowledge-base articles, as the rest of the service sees them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import RowMapping

from supportdesk.db.tables import articles
from supportdesk.domain.full_text import relevance_key

DRAFT = "draft"
PUBLISHED = "published"
STATUSES = (DRAFT, PUBLISHED)


@dataclass(frozen=True, slots=True)
class Article:
    id: str
    workspace_id: str
    title: str
    body: str
    status: str
    created_at: datetime
    updated_at: datetime
    published_at: datetime | None


@dataclass(frozen=True, slots=True)
class ArticleFilter:
    status: str | None = None
    query: str | None = None


@dataclass(frozen=True, slots=True)
class ArticleHit:
    """An article in a list; `score` is its relevance when the list is a search."""

    article: Article
    score: float | None = None

    @property
    def id(self) -> str:
        return self.article.id

    @property
    def cursor_key(self) -> str:
        """What the next page continues after: the id, or (relevance, id) for a search."""
        return self.article.id if self.score is None else relevance_key(self.score, self.article.id)


ARTICLE_COLUMNS = (
    articles.c.id,
    articles.c.workspace_id,
    articles.c.title,
    articles.c.body,
    articles.c.status,
    articles.c.created_at,
    articles.c.updated_at,
    articles.c.published_at,
)


def article_of(row: RowMapping) -> Article:
    return Article(**{key: row[key] for key in Article.__slots__})
