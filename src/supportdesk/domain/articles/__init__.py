"""Knowledge-base articles: drafts and published pages, searchable in full text."""

from supportdesk.domain.articles.actions import (
    NewArticle,
    create_article,
    create_articles,
    publish_article,
    unpublish_article,
    update_article,
)
from supportdesk.domain.articles.models import STATUSES, Article, ArticleFilter, ArticleHit
from supportdesk.domain.articles.queries import count_articles, get_articles, list_articles

__all__ = [
    "STATUSES",
    "Article",
    "ArticleFilter",
    "ArticleHit",
    "NewArticle",
    "count_articles",
    "create_article",
    "create_articles",
    "get_articles",
    "list_articles",
    "publish_article",
    "unpublish_article",
    "update_article",
]
