"""Migrations build exactly the tables the code declares, and keep data across upgrades."""

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

from supportdesk.config import normalise_database_url
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


def differences(url: str) -> list[Any]:
    async def compare(connection: AsyncConnection) -> list[Any]:
        return await connection.run_sync(
            lambda sync: compare_metadata(MigrationContext.configure(sync), metadata)
        )

    return list(asyncio.run(with_connection(url, compare)))


def test_the_migrated_schema_is_the_declared_one(fresh_database: str) -> None:
    url = normalise_database_url(fresh_database)
    upgrade(url, "0001")
    assert differences(url) != []  # the check sees a schema that lags behind

    upgrade(url)

    assert differences(url) == []


def test_upgrading_keeps_rows_and_constraints(fresh_database: str) -> None:
    url = normalise_database_url(fresh_database)
    upgrade(url, "0001")

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


def test_every_migration_can_be_undone_and_redone(fresh_database: str) -> None:
    url = normalise_database_url(fresh_database)
    upgrade(url)

    command.downgrade(alembic_config(url), "base")
    upgrade(url)

    assert differences(url) == []
