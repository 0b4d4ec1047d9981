"""Migration 0005 makes room for case-folded names; after it, the migrations build exactly
the tables the code declares."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import insert, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, create_async_engine

from supportdesk.db.migrate import alembic_config, upgrade
from supportdesk.db.tables import machine_users, metadata, workspaces

AT = datetime(2026, 11, 22, 13, 45, 7, tzinfo=UTC)


async def with_connection(url: str, work: Any) -> Any:
    engine = create_async_engine(url)
    try:
        async with engine.begin() as connection:
            return await work(connection)
    finally:
        await engine.dispose()


# Full-text search is built per backend by migrations 0002 (articles) and 0013 (issues)
# and deliberately not declared.
SEARCH_STRUCTURES = (
    "articles_fts",
    "ix_articles_search_",
    "issues_fts",
    "ix_issues_search_",
    "search_vector",
)


def declared_or_not_search(
    _object: Any, name: str | None, _type: str, _reflected: bool, _compare_to: Any
) -> bool:
    return not (name or "").startswith(SEARCH_STRUCTURES)


def differences(url: str) -> list[Any]:
    """What autogenerate would change to make the database match tables.py."""

    def compare(sync: Any) -> list[Any]:
        context = MigrationContext.configure(sync, opts={"include_object": declared_or_not_search})
        return list(compare_metadata(context, metadata))

    async def run(connection: AsyncConnection) -> list[Any]:
        return await connection.run_sync(compare)

    return list(asyncio.run(with_connection(url, run)))


def test_the_migrated_schema_is_the_declared_one(empty_database: str) -> None:
    url = empty_database
    upgrade(url, "0004")
    assert differences(url) != []  # the check sees a schema that lags behind

    upgrade(url)

    assert differences(url) == []


def test_upgrading_keeps_rows_and_constraints(empty_database: str) -> None:
    url = empty_database
    upgrade(url, "0004")

    async def seed(connection: AsyncConnection) -> None:
        await connection.execute(insert(workspaces).values(id="ws_1", name="W", created_at=AT))
        await connection.execute(
            insert(machine_users).values(
                workspace_id="ws_1",
                id="mu_1",
                name="Straße",
                name_normalized="strasse",
                description="",
                managed=False,
                created_at=AT,
                updated_at=AT,
            )
        )

    asyncio.run(with_connection(url, seed))
    upgrade(url)

    async def read_and_insert(connection: AsyncConnection) -> list[str]:
        await connection.execute(
            insert(machine_users).values(
                workspace_id="ws_1",
                id="mu_2",
                name="ß" * 100,
                name_normalized="ss" * 100,
                description="",
                managed=False,
                created_at=AT,
                updated_at=AT,
            )
        )
        return list(await connection.scalars(select(machine_users.c.name).order_by("id")))

    assert asyncio.run(with_connection(url, read_and_insert)) == ["Straße", "ß" * 100]

    async def duplicate(connection: AsyncConnection) -> None:
        await connection.execute(
            insert(machine_users).values(
                workspace_id="ws_1",
                id="mu_3",
                name="STRASSE",
                name_normalized="strasse",
                description="",
                managed=False,
                created_at=AT,
                updated_at=AT,
            )
        )

    with pytest.raises(IntegrityError):
        asyncio.run(with_connection(url, duplicate))


def test_every_migration_can_be_undone_and_redone(empty_database: str) -> None:
    url = empty_database
    upgrade(url)

    command.downgrade(alembic_config(url), "base")
    upgrade(url)

    assert differences(url) == []
