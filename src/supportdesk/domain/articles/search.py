"""Full-text search over articles: the articles' index.

A query is split into words (domain/full_text.py); every word must match, stemmed by the
backend. The index (built by migration 0002, its workspace column by 0016; how each
backend keeps it and ranks with it: db/search.py) holds each article's title and body, a
match in the title weighing more: ten matches of the body on SQLite, weight A against B on
PostgreSQL. It is taken from the article's own columns, so the writers (actions.py) only
hand it the texts they index or stop indexing, inside their own transactions.
"""

from __future__ import annotations

from supportdesk.db.search import SearchEntry, SearchField, SearchIndex
from supportdesk.db.tables import articles
from supportdesk.domain.articles.models import Article

ARTICLE_SEARCH = SearchIndex(
    table=articles,
    key=(articles.c.workspace_id, articles.c.id),
    rowid=articles.c.search_rowid,
    fields=(SearchField("title", weight="A", boost=10.0), SearchField("body", weight="B")),
    fts="articles_fts",
    vector="search_vector",
)


def search_entry(article: Article, rowid: int | None) -> SearchEntry:
    """The article's entry in the index (`rowid`: its `search_rowid`)."""
    return SearchEntry(rowid, (article.workspace_id, article.id), (article.title, article.body))
