"""Migration 0016 puts the workspace into SQLite's full-text indexes: every issue and
article indexed before (issues by migration 0013, articles by their writers) is found by
its own workspace's search, FTS5 itself hands over no other workspace's rows, and the
writers carry on; downgrading gives back the indexes as they were, and upgrading again
the same as the first time. PostgreSQL's indexes do not change."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

from alembic import command
from sqlalchemy import insert, select, text

from supportdesk.db import Database
from supportdesk.db.migrate import alembic_config, upgrade
from supportdesk.db.search import SearchIndex
from supportdesk.db.tables import articles, contacts, issues, messages, workspaces
from supportdesk.domain.articles.search import ARTICLE_SEARCH
from supportdesk.domain.issues.search import ISSUE_SEARCH, THREAD
from tests.db.test_migration_0005 import with_connection

AT = datetime(2026, 11, 22, 13, 45, 7, tzinfo=UTC)
OURS, THEIRS = "ws_01JD0000000000000000000AAN", "ws_01JD0000000000000000000AAP"
# (id, subject or title, body), in each workspace; ids end in the workspace's last letter.
ISSUES = [
    ("iss_toner", "Printer broken", "The toner cartridge died."),
    ("iss_mail", "Mail bounces", "Mail to the boss bounces."),
]
ARTICLES = [
    ("art_toner", "Changing a cartridge", "Open the printer."),
    ("art_mail", "Mail settings", "Set the server."),
]


async def seed(connection: Any) -> None:
    """Both workspaces' issues and articles, at revision 0012: 0013 indexes the issues;
    the articles are indexed as their writers did then (on PostgreSQL the database does)."""
    sqlite = connection.dialect.name == "sqlite"
    rowid = 0
    for workspace in (OURS, THEIRS):
        mark = workspace[-1]
        await connection.execute(insert(workspaces).values(id=workspace, name="W", created_at=AT))
        await connection.execute(
            insert(contacts).values(
                workspace_id=workspace,
                id="ct_1",
                email="ada@example.com",
                email_normalized="ada@example.com",
                created_at=AT,
                updated_at=AT,
            )
        )
        for number, (issue_id, subject, body) in enumerate(ISSUES, 1):
            await connection.execute(
                insert(issues).values(
                    workspace_id=workspace,
                    id=issue_id + mark,
                    ticket_number=number,
                    subject=subject,
                    status="new",
                    priority="normal",
                    requester_id="ct_1",
                    message_count=1,
                    created_at=AT,
                    updated_at=AT,
                )
            )
            await connection.execute(
                insert(messages).values(
                    workspace_id=workspace,
                    id=f"msg_{issue_id}{mark}",
                    issue_id=issue_id + mark,
                    sender_name="Ada",
                    body=body,
                    author_type="contact",
                    author_id="ct_1",
                    created_at=AT,
                )
            )
        for article_id, title, body in ARTICLES:
            rowid += 1
            await connection.execute(
                insert(articles).values(
                    workspace_id=workspace,
                    id=article_id + mark,
                    title=title,
                    body=body,
                    status="published",
                    created_at=AT,
                    updated_at=AT,
                    search_rowid=rowid,
                )
            )
            if sqlite:
                await connection.execute(
                    text("INSERT INTO articles_fts (rowid, title, body) VALUES (:r, :t, :b)"),
                    {"r": rowid, "t": title, "b": body},
                )


async def search(db: Database, index: SearchIndex, words: list[str]) -> list[str]:
    """What the index's search in our workspace matches, with no other condition on the
    workspace (on PostgreSQL, whose condition has none, with the usual one)."""
    hit = index.search(OURS, words)
    statement = select(index.table.c.id).select_from(hit.source).where(hit.condition)
    if not db.is_sqlite:
        statement = statement.where(index.table.c.workspace_id == OURS)
    async with db.read() as connection:
        return sorted((await connection.execute(statement)).scalars())


async def searches(url: str) -> dict[str, list[str]]:
    db = Database(url)
    try:
        return {
            "issue, thread": await search(db, ISSUE_SEARCH, ["cartridges"]),
            "issue, subject": await search(db, ISSUE_SEARCH, ["mail", "bounce"]),
            "article, title": await search(db, ARTICLE_SEARCH, ["cartridge"]),
            "article, body": await search(db, ARTICLE_SEARCH, ["server"]),
        }
    finally:
        await db.dispose()


async def write_on(url: str) -> dict[str, list[str]]:
    """The writers carry on: a reply appended to an issue's thread."""
    db = Database(url)
    try:
        async with db.transaction() as connection:
            await ISSUE_SEARCH.append(connection, THREAD, (OURS, "iss_mailN"), "Use the drum.")
        return {"appended": await search(db, ISSUE_SEARCH, ["drum"])}
    finally:
        await db.dispose()


async def fts_columns(url: str) -> dict[str, list[str]]:
    async def look(connection: Any) -> dict[str, list[str]]:
        if connection.dialect.name != "sqlite":
            return {}
        found = {}
        for table in ("issues_fts", "articles_fts"):
            rows = await connection.execute(text(f"PRAGMA table_info({table})"))
            found[table] = [row[1] for row in rows]
        return found

    found: dict[str, list[str]] = await with_connection(url, look)
    return found


async def old_matches(url: str) -> dict[str, list[int]]:
    """The row ids the indexes of revision 0015 match, as its searches asked them."""

    async def look(connection: Any) -> dict[str, list[int]]:
        if connection.dialect.name != "sqlite":
            return {}
        found = {}
        for table, word in (("issues_fts", "cartridge"), ("articles_fts", "cartridge")):
            rows = await connection.execute(
                text(f"SELECT rowid FROM {table} WHERE {table} MATCH :w ORDER BY rowid"),
                {"w": f'"{word}"'},
            )
            found[table] = [row[0] for row in rows]
        return found

    found: dict[str, list[int]] = await with_connection(url, look)
    return found


def test_every_row_is_found_by_its_own_workspace_alone(empty_database: str) -> None:
    url = empty_database
    upgrade(url, "0012")
    asyncio.run(with_connection(url, seed))
    upgrade(url, "0015")
    before = asyncio.run(old_matches(url))

    upgrade(url, "0016")
    found = asyncio.run(searches(url))
    written = asyncio.run(write_on(url))

    assert found == {
        "issue, thread": ["iss_tonerN"],
        "issue, subject": ["iss_mailN"],
        "article, title": ["art_tonerN"],
        "article, body": ["art_mailN"],
    }
    assert written == {"appended": ["iss_mailN"]}
    if url.startswith("sqlite"):
        assert before == {"issues_fts": [1, 3], "articles_fts": [1, 3]}


def test_up_down_and_up_again(empty_database: str) -> None:
    url = empty_database
    upgrade(url, "0012")
    asyncio.run(with_connection(url, seed))
    upgrade(url, "0015")
    before = (asyncio.run(fts_columns(url)), asyncio.run(old_matches(url)))

    upgrade(url, "0016")
    after_upgrade = (asyncio.run(fts_columns(url)), asyncio.run(searches(url)))
    command.downgrade(alembic_config(url), "0015")
    after_downgrade = (asyncio.run(fts_columns(url)), asyncio.run(old_matches(url)))
    upgrade(url, "0016")

    assert after_downgrade == before
    assert (asyncio.run(fts_columns(url)), asyncio.run(searches(url))) == after_upgrade
    if url.startswith("sqlite"):
        assert after_upgrade[0] == {
            "issues_fts": ["subject", "body", "workspace_id"],
            "articles_fts": ["title", "body", "workspace_id"],
        }
        assert before[0] == {"issues_fts": ["subject", "body"], "articles_fts": ["title", "body"]}
