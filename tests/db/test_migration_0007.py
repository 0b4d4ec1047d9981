"""Migration 0007 adds the settings page's server-side sessions, whose rows go with their
person, and takes them away again on downgrade."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from alembic import command
from sqlalchemy import delete, func, insert, select

from supportdesk.db import Database
from supportdesk.db.migrate import alembic_config, upgrade
from supportdesk.db.tables import org_admin_sessions, org_admins, workspaces
from tests.db.test_migration_0002 import search_structures

AT = datetime(2026, 11, 24, 9, 30, tzinfo=UTC)


async def _sessions_left_after_removing_their_person(url: str) -> int:
    db = Database(url, pool_size=1)  # the service's engine: on SQLite, foreign keys on
    try:
        async with db.transaction() as connection:
            await connection.execute(insert(workspaces).values(id="ws_1", name="W", created_at=AT))
            await connection.execute(
                insert(org_admins).values(
                    workspace_id="ws_1",
                    id="oa_1",
                    email="a@example.com",
                    email_normalized="a@example.com",
                    password_hash="x",
                    role="admin",
                    created_at=AT,
                )
            )
            await connection.execute(
                insert(org_admin_sessions).values(
                    workspace_id="ws_1",
                    session_hash="0" * 64,
                    admin_id="oa_1",
                    created_at=AT,
                    expires_at=AT + timedelta(hours=12),
                )
            )
        async with db.transaction() as connection:
            await connection.execute(
                delete(org_admins).where(
                    org_admins.c.workspace_id == "ws_1", org_admins.c.id == "oa_1"
                )
            )
            left = await connection.scalar(
                select(func.count())
                .select_from(org_admin_sessions)
                .where(org_admin_sessions.c.workspace_id == "ws_1")
            )
        return int(left or 0)
    finally:
        await db.dispose()


def test_up_down_and_up_again(empty_database: str) -> None:
    upgrade(empty_database)
    after_upgrade = search_structures(empty_database)
    command.downgrade(alembic_config(empty_database), "0006")
    after_downgrade = search_structures(empty_database)
    upgrade(empty_database)

    assert "org_admin_sessions" in after_upgrade
    assert "org_admin_sessions" not in after_downgrade
    assert "org_admins" in after_downgrade
    assert search_structures(empty_database) == after_upgrade


def test_a_person_s_sessions_go_with_them(empty_database: str) -> None:
    upgrade(empty_database)

    left = asyncio.run(_sessions_left_after_removing_their_person(empty_database))

    assert left == 0
