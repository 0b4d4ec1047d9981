"""The writers of articles: create (one or many), update, publish, unpublish. Each is one
transaction, and keeps the search index in step inside it (see search.py)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import insert

from supportdesk.db import Database
from supportdesk.db.connection import Connection
from supportdesk.db.locking import locked_row
from supportdesk.db.tables import articles
from supportdesk.domain.articles.models import (
    ARTICLE_COLUMNS,
    DRAFT,
    PUBLISHED,
    STATUSES,
    Article,
    article_of,
)
from supportdesk.domain.articles.search import ARTICLE_SEARCH, search_entry
from supportdesk.domain.audit import Actor
from supportdesk.domain.clock import now
from supportdesk.domain.errors import FieldCode, not_found
from supportdesk.domain.events import record_events, snapshots
from supportdesk.domain.ids import is_id_of, new_id
from supportdesk.domain.rows import updated_row
from supportdesk.domain.validation import Validator

MAX_TITLE = 255
MAX_BODY = 100_000


@dataclass(frozen=True, slots=True)
class NewArticle:
    title: str | None
    body: str | None = None
    status: str | None = None


def _body(check: Validator, value: str | None) -> str:
    """Any text, empty allowed (a draft may start with a title only)."""
    if value is not None and len(value) > MAX_BODY:
        check.fail("body", FieldCode.TOO_LONG, f"body takes at most {MAX_BODY:,} characters.")
    return value or ""


def _status(check: Validator, value: str | None) -> str:
    cleaned = (value or DRAFT).strip().lower()
    if cleaned not in STATUSES:
        check.fail("status", FieldCode.INVALID, f"status is one of {', '.join(STATUSES)}.")
    return cleaned


def _checked(new: NewArticle) -> tuple[str, str, str]:
    check = Validator()
    title = check.text("title", new.title, MAX_TITLE, required=True)
    body = _body(check, new.body)
    status = _status(check, new.status)
    check.check()
    assert title is not None
    return title, body, status


async def create_articles(
    db: Database, actor: Actor, workspace_id: str, new_articles: Sequence[NewArticle]
) -> list[Article]:
    """Write several articles in one transaction (imports); all or none. Each is a draft
    unless its status says `published`."""
    checked = [_checked(new) for new in new_articles]
    moment = now()
    made = [
        Article(
            new_id("Article", moment),
            workspace_id,
            title,
            body,
            status,
            moment,
            moment,
            moment if status == PUBLISHED else None,
        )
        for title, body, status in checked
    ]
    if not made:
        return []
    async with db.transaction() as connection:
        rowids = await ARTICLE_SEARCH.next_rowids(connection, len(made))
        await connection.execute(
            insert(articles),
            [
                {**_values(article), "search_rowid": rowid}
                for article, rowid in zip(made, rowids, strict=True)
            ],
        )
        await ARTICLE_SEARCH.add(
            connection,
            [search_entry(article, rowid) for article, rowid in zip(made, rowids, strict=True)],
        )
        await record_events(
            connection,
            workspace_id,
            actor,
            [("article.created", {"article": snapshots.article(article)}) for article in made],
        )
    return made


def _values(article: Article) -> dict[str, object]:
    return {key: getattr(article, key) for key in Article.__slots__}


async def create_article(db: Database, actor: Actor, workspace_id: str, new: NewArticle) -> Article:
    """A new article: title required (≤ 255), body up to 100,000 characters, a draft
    unless `status` is `published`."""
    [article] = await create_articles(db, actor, workspace_id, [new])
    return article


async def _locked_article(
    connection: Connection, workspace_id: str, article_id: str
) -> tuple[Article, int | None]:
    """The article and its row id in the search index (None on PostgreSQL)."""
    columns = (*ARTICLE_COLUMNS, articles.c.search_rowid)
    row = await locked_row(connection, articles, columns, workspace_id, article_id)
    if row is None:
        raise not_found("Article")
    return article_of(row._mapping), row.search_rowid


async def _save(connection: Connection, article: Article, **changes: object) -> Article:
    changes["updated_at"] = now()
    row = await updated_row(
        connection, articles, ARTICLE_COLUMNS, article.workspace_id, article.id, **changes
    )
    return article_of(row._mapping)


async def update_article(
    db: Database,
    actor: Actor,
    workspace_id: str,
    article_id: str,
    *,
    title: str | None = None,
    body: str | None = None,
) -> Article:
    """Change the title and/or body; the search index follows in the same transaction."""
    check = Validator()
    clean_title = (
        check.text("title", title, MAX_TITLE, required=True) if title is not None else None
    )
    clean_body = _body(check, body) if body is not None else None
    check.check()
    if not is_id_of(article_id, "Article"):
        raise not_found("Article")
    async with db.transaction() as connection:
        article, rowid = await _locked_article(connection, workspace_id, article_id)
        changes = {
            key: value
            for key, value in (("title", clean_title), ("body", clean_body))
            if value is not None and getattr(article, key) != value
        }
        if not changes:
            return article
        changed = await _save(connection, article, **changes)
        await ARTICLE_SEARCH.replace(
            connection, [search_entry(article, rowid)], [search_entry(changed, rowid)]
        )
        await _record_change(connection, actor, "article.updated", article, changed)
    return changed


async def _record_change(
    connection: Connection, actor: Actor, kind: str, before: Article, after: Article
) -> None:
    snapshot = snapshots.article(after)
    changes = snapshots.changes(snapshots.article(before), snapshot)
    await record_events(
        connection, after.workspace_id, actor, [(kind, {"article": snapshot, "changes": changes})]
    )


async def _set_status(
    db: Database, actor: Actor, workspace_id: str, article_id: str, status: str
) -> Article:
    if not is_id_of(article_id, "Article"):
        raise not_found("Article")
    async with db.transaction() as connection:
        article, _ = await _locked_article(connection, workspace_id, article_id)
        if article.status == status:
            return article
        changed = await _save(
            connection,
            article,
            status=status,
            published_at=now() if status == PUBLISHED else None,
        )
        kind = "article.published" if status == PUBLISHED else "article.unpublished"
        await _record_change(connection, actor, kind, article, changed)
        return changed


async def publish_article(
    db: Database, actor: Actor, workspace_id: str, article_id: str
) -> Article:
    """Make the article public; `publishedAt` is now. Publishing a published article
    changes nothing."""
    return await _set_status(db, actor, workspace_id, article_id, PUBLISHED)


async def unpublish_article(
    db: Database, actor: Actor, workspace_id: str, article_id: str
) -> Article:
    """Make the article a draft again; `publishedAt` becomes null. Unpublishing a draft
    changes nothing."""
    return await _set_status(db, actor, workspace_id, article_id, DRAFT)
