"""Helpers of the invitation tests: adding a member on the page, reading the link, and
moving a link's expiry in the test database."""

from __future__ import annotations

from datetime import timedelta
from urllib.parse import urlsplit

import httpx
from sqlalchemy import select, update

from supportdesk.db.tables import member_invitations
from supportdesk.domain.clock import now
from tests.conftest import WorkspaceFixture
from tests.web.settings_client import SettingsClient, link_on

NEW_PASSWORD = "a password of my own"


def add_member(admin: SettingsClient, email: str, **fields: str) -> httpx.Response:
    values = {"email": email, "name": "", "role": "agent", "password": "", **fields}
    return admin.submit("/settings/members/new", "/settings/members", values)


def invited(admin: SettingsClient, email: str, **fields: str) -> str:
    """Add a member without a password on Settings → Members; the path of their link."""
    answer = add_member(admin, email, **fields)
    link = link_on(answer.text)
    assert answer.status_code == 200 and link, (answer.status_code, answer.text[:500])
    return urlsplit(link).path


def choose_password(
    client: SettingsClient, path: str, password: str = NEW_PASSWORD, confirm: str | None = None
) -> httpx.Response:
    return client.submit(
        path, path, {"password": password, "confirm": password if confirm is None else confirm}
    )


def expire_invitations(workspace: WorkspaceFixture, member_id: str) -> None:
    """Move the member's links a second past their 7 days."""

    async def move() -> None:
        async with workspace.server.db.transaction() as connection:
            await connection.execute(
                update(member_invitations)
                .where(
                    member_invitations.c.workspace_id == workspace.id,
                    member_invitations.c.member_id == member_id,
                )
                .values(expires_at=now() - timedelta(seconds=1))
            )

    workspace.server.call(move())


def stored_invitations(workspace: WorkspaceFixture) -> list[tuple[str, str]]:
    """(member id, token hash) of the workspace's stored links."""

    async def read() -> list[tuple[str, str]]:
        async with workspace.server.db.read() as connection:
            rows = await connection.execute(
                select(member_invitations.c.member_id, member_invitations.c.token_hash).where(
                    member_invitations.c.workspace_id == workspace.id
                )
            )
            return [(row.member_id, row.token_hash) for row in rows]

    return workspace.server.call(read())
