"""Migration 0013 indexes every existing issue for full-text search (the subject and every
message, over several batches; on PostgreSQL a thread too long for one piece message by
message), in the shape the writers then keep up; downgrading takes the structures away."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

from alembic import command
from sqlalchemy import insert, inspect, select
from sqlalchemy.ext.asyncio import create_async_engine

from supportdesk.db import Database
from supportdesk.db.migrate import alembic_config, upgrade
from supportdesk.db.tables import contacts, issues, messages, workspaces
from supportdesk.domain.issues.search import ISSUE_SEARCH, THREAD
from tests.db.inspection import inspected

AT = datetime(2026, 11, 22, 13, 45, 7, tzinfo=UTC)
WS = "ws_1"
FILLERS = 1_100  # more than two batches of the migration
# Four messages of 60,000 characters: longer than PostgreSQL indexes in one piece.
LONG_MESSAGE = ("lorem ipsum dolor sit amet " * 2_223)[:60_000]


def issue_row(issue_id: str, number: int, subject: str) -> dict[str, Any]:
    return {
        "workspace_id": WS,
        "id": issue_id,
        "ticket_number": number,
        "subject": subject,
        "status": "new",
        "priority": "normal",
        "requester_id": "ct_1",
        "message_count": 0,
        "created_at": AT,
        "updated_at": AT,
    }


def message_rows(issue_id: str, bodies: list[str]) -> list[dict[str, Any]]:
    return [
        {
            "workspace_id": WS,
            "id": f"msg_{issue_id}_{position:03d}",
            "issue_id": issue_id,
            "sender_name": "Ada",
            "body": body,
            "author_type": "contact",
            "author_id": "ct_1",
            "created_at": AT + timedelta(seconds=position),
        }
        for position, body in enumerate(bodies)
    ]


THREADS = {
    "iss_third": ("Printer broken", ["Hello", "Did you restart it?", "The toner cartridge died."]),
    "iss_long": ("Logs", [LONG_MESSAGE] * 3 + [LONG_MESSAGE[:-9] + " zeppelin"]),
    "iss_quiet": ("No thread at all", []),
}


async def seed(url: str) -> None:
    engine = create_async_engine(url)
    try:
        async with engine.begin() as connection:
            await connection.execute(insert(workspaces).values(id=WS, name="W", created_at=AT))
            await connection.execute(
                insert(contacts).values(
                    workspace_id=WS,
                    id="ct_1",
                    email="ada@example.com",
                    email_normalized="ada@example.com",
                    created_at=AT,
                    updated_at=AT,
                )
            )
            threads = {
                **THREADS,
                **{
                    f"iss_filler_{n:05d}": (f"Filler {n}", [f"plain {n}", "text"])
                    for n in range(FILLERS)
                },
            }
            await connection.execute(
                insert(issues),
                [
                    issue_row(i, n, subject)
                    for n, (i, (subject, _)) in enumerate(threads.items(), 1)
                ],
            )
            await connection.execute(
                insert(messages),
                [m for i, (_, bodies) in threads.items() for m in message_rows(i, bodies)],
            )
    finally:
        await engine.dispose()


async def search(db: Database, words: list[str]) -> list[str]:
    hit = ISSUE_SEARCH.search(WS, words)
    statement = (
        select(issues.c.id)
        .select_from(hit.source)
        .where(issues.c.workspace_id == WS, hit.condition)
        .order_by(hit.score.desc(), issues.c.id)
    )
    async with db.read() as connection:
        return list((await connection.execute(statement)).scalars())


async def searches(url: str) -> dict[str, list[str]]:
    db = Database(url)
    try:
        found = {
            "third message": await search(db, ["cartridges"]),
            "subject": await search(db, ["printers"]),
            "end of a long thread": await search(db, ["zeppelin"]),
            "no thread": await search(db, ["thread"]),
            "a filler": await search(db, ["plain", "1099"]),
            "every filler": await search(db, ["text"]),
        }
        async with db.transaction() as connection:  # the writers carry on where it left
            await ISSUE_SEARCH.append(connection, THREAD, (WS, "iss_third"), "A new drum.")
        found["appended"] = await search(db, ["drum", "printer"])
        return found
    finally:
        await db.dispose()


def structures(url: str) -> set[str]:
    def look(connection: Any) -> set[str]:
        inspector = inspect(connection)
        found = set(inspector.get_table_names())
        found |= {index["name"] or "" for index in inspector.get_indexes("issues")}
        return found | {column["name"] for column in inspector.get_columns("issues")}

    return inspected(url, look)


def test_every_issue_is_indexed_and_the_writers_carry_on(empty_database: str) -> None:
    upgrade(empty_database, "0011")
    asyncio.run(seed(empty_database))

    upgrade(empty_database)
    found = asyncio.run(searches(empty_database))

    assert found["third message"] == ["iss_third"]
    assert found["subject"] == ["iss_third"]
    assert found["end of a long thread"] == ["iss_long"]
    assert found["no thread"] == ["iss_quiet"]
    assert found["a filler"] == ["iss_filler_01099"]
    assert len(found["every filler"]) == FILLERS
    assert found["appended"] == ["iss_third"]


def test_up_down_and_up_again(empty_database: str) -> None:
    upgrade(empty_database)
    after_upgrade = structures(empty_database)
    command.downgrade(alembic_config(empty_database), "0012")
    after_downgrade = structures(empty_database)
    upgrade(empty_database)

    if empty_database.startswith("sqlite"):
        added = {"issues_fts", "ix_issues_search_rowid", "search_rowid"}
    else:
        added = {"search_vector", "ix_issues_search_vector", "search_rowid"}
    assert added <= after_upgrade
    assert not added & after_downgrade
    assert "issues" in after_downgrade
    assert structures(empty_database) == after_upgrade
