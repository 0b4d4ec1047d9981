"""Migration 0012 makes the org admins the workspace's members: their ids take the `mem_`
prefix (the audit log follows), an unnamed one is named by their e-mail, their sessions end,
and issues gain an assignee; a downgrade gives the old ids back."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

from alembic import command
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from supportdesk.db.migrate import alembic_config, upgrade

AT = datetime(2026, 11, 24, 9, 30, tzinfo=UTC)
RANDOM = "01JD0000000000000000000001"


def run(url: str, statements: list[tuple[str, dict[str, Any]]], query: str) -> list[Any]:
    async def go() -> list[Any]:
        engine = create_async_engine(url)
        try:
            async with engine.begin() as connection:
                for statement, values in statements:
                    await connection.execute(text(statement), values)
                return list((await connection.execute(text(query))).all())
        finally:
            await engine.dispose()

    return asyncio.run(go())


def seed_an_admin_of_0011(url: str) -> None:
    run(
        url,
        [
            (
                "INSERT INTO workspaces (id, name, last_ticket_number, last_event_sequence, "
                "created_at) VALUES ('ws_1', 'W', 0, 0, :at)",
                {"at": AT},
            ),
            (
                "INSERT INTO org_admins (workspace_id, id, email, email_normalized, name, "
                "password_hash, role, created_at) VALUES ('ws_1', :id, 'a@example.com', "
                "'a@example.com', '', 'hash', 'admin', :at)",
                {"id": f"adm_{RANDOM}", "at": AT},
            ),
            (
                "INSERT INTO org_admin_sessions (workspace_id, session_hash, admin_id, "
                "created_at, expires_at) VALUES ('ws_1', :hash, :id, :at, :until)",
                {"hash": "0" * 64, "id": f"adm_{RANDOM}", "at": AT, "until": AT + timedelta(1)},
            ),
            (
                "INSERT INTO audit_events (workspace_id, id, action, actor_type, actor_id, "
                "actor_label, target_type, target_id, data, created_at) VALUES ('ws_1', "
                "'aud_1', 'org_admin.created', 'org_admin', :id, 'a', 'OrgAdmin', :id, '{}', :at)",
                {"id": f"adm_{RANDOM}", "at": AT},
            ),
        ],
        "SELECT 1",
    )


def people(url: str) -> list[Any]:
    return run(url, [], "SELECT id, name FROM org_admins")


def audit_trail(url: str) -> list[Any]:
    return run(url, [], "SELECT actor_id, target_type, target_id FROM audit_events")


def sessions(url: str) -> list[Any]:
    return run(url, [], "SELECT admin_id FROM org_admin_sessions")


def test_org_admins_become_members_and_back(empty_database: str) -> None:
    upgrade(empty_database, "0011")
    seed_an_admin_of_0011(empty_database)

    upgrade(empty_database, "0012")

    assert [tuple(row) for row in people(empty_database)] == [(f"mem_{RANDOM}", "a@example.com")]
    assert [tuple(row) for row in audit_trail(empty_database)] == [
        (f"mem_{RANDOM}", "Member", f"mem_{RANDOM}")
    ]
    assert sessions(empty_database) == []
    assert run(empty_database, [], "SELECT assignee_type, assignee_id FROM issues") == []
    command.downgrade(alembic_config(empty_database), "0011")
    assert [row[0] for row in people(empty_database)] == [f"adm_{RANDOM}"]
    assert [tuple(row) for row in audit_trail(empty_database)] == [
        (f"adm_{RANDOM}", "OrgAdmin", f"adm_{RANDOM}")
    ]
    upgrade(empty_database)
    assert [row[0] for row in people(empty_database)] == [f"mem_{RANDOM}"]
