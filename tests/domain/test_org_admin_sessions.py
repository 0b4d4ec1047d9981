"""Settings-page sessions on the server: starting, finding, ending, expiring (domain rules, on
both backends)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import delete, func, select

from supportdesk.db.tables import org_admin_sessions
from supportdesk.db.tables import org_admins as org_admins_table
from supportdesk.domain import audit, members, org_admins
from tests.conftest import ADMIN_PASSWORD, WorkspaceFixture, make_workspace, unique_email
from tests.servers import RunningServer

LIFETIME = timedelta(hours=1)


def start(workspace: WorkspaceFixture, lifetime: timedelta = LIFETIME) -> str:
    server = workspace.server
    return server.call(org_admins.start_session(server.db, [workspace.made.admin], lifetime))


def seat(workspace: WorkspaceFixture, session_id: str) -> org_admins.Membership | None:
    server = workspace.server
    admin_id = workspace.made.admin.id
    return server.call(org_admins.session_membership(server.db, session_id, workspace.id, admin_id))


def sessions_in(workspace: WorkspaceFixture) -> int:
    async def count() -> Any:
        async with workspace.server.db.read() as connection:
            return await connection.scalar(
                select(func.count())
                .select_from(org_admin_sessions)
                .where(org_admin_sessions.c.workspace_id == workspace.id)
            )

    return int(workspace.server.call(count()))


def test_a_started_session_finds_its_seat(workspace: WorkspaceFixture) -> None:
    session_id = start(workspace)

    found = seat(workspace, session_id)

    assert found is not None
    assert (found.admin.id, found.workspace_name) == (workspace.made.admin.id, "Test workspace")
    assert seat(workspace, session_id + "x") is None


def test_only_the_digest_of_the_session_id_is_stored(workspace: WorkspaceFixture) -> None:
    session_id = start(workspace)

    async def stored() -> list[str]:
        async with workspace.server.db.read() as connection:
            rows = await connection.scalars(
                select(org_admin_sessions.c.session_hash).where(
                    org_admin_sessions.c.workspace_id == workspace.id
                )
            )
            return list(rows)

    assert session_id not in workspace.server.call(stored())


def test_ending_a_session_ends_it_in_every_workspace_it_covers(server: RunningServer) -> None:
    email = unique_email()
    first, second = make_workspace(server, "First", email), make_workspace(server, "Second", email)
    seats = [first.made.admin, second.made.admin]
    session_id = server.call(org_admins.start_session(server.db, seats, LIFETIME))

    async def covered() -> list[str]:
        found = await org_admins.session_memberships(server.db, session_id, [first.id, second.id])
        return [membership.workspace_name for membership in found]

    before = server.call(covered())
    server.call(org_admins.end_session(server.db, session_id, [first.id, second.id]))

    assert before == ["First", "Second"]
    assert server.call(covered()) == []


def test_ending_a_person_s_sessions_ends_all_of_theirs_and_only_theirs(
    workspace: WorkspaceFixture,
) -> None:
    server = workspace.server
    theirs = [start(workspace), start(workspace)]
    colleague = server.call(
        members.create_member(
            server.db,
            audit.CLI_ACTOR,
            workspace.id,
            email=unique_email("colleague"),
            role="admin",
            password=ADMIN_PASSWORD,
        )
    )
    server.call(org_admins.start_session(server.db, [colleague], LIFETIME))

    ended = server.call(
        org_admins.end_admin_sessions(
            server.db, audit.CLI_ACTOR, workspace.id, workspace.made.admin.id
        )
    )

    assert ended == 2
    assert [seat(workspace, session_id) for session_id in theirs] == [None, None]
    assert sessions_in(workspace) == 1  # the colleague's


def test_ending_a_person_s_sessions_is_audited(workspace: WorkspaceFixture) -> None:
    start(workspace)
    server = workspace.server

    server.call(
        org_admins.end_admin_sessions(
            server.db, audit.CLI_ACTOR, workspace.id, workspace.made.admin.id
        )
    )

    events = workspace.client().ok(
        "{ auditEvents(first: 1) { edges { node { action targetId data } } } }"
    )["auditEvents"]["edges"]
    assert events[0]["node"] == {
        "action": "org_admin.sessions_ended",
        "targetId": workspace.made.admin.id,
        "data": {"sessions": 1},
    }


def test_an_expired_session_is_refused_and_cleared_at_the_next_login(
    workspace: WorkspaceFixture,
) -> None:
    expired = start(workspace, lifetime=timedelta(seconds=-1))
    refused = seat(workspace, expired)
    assert sessions_in(workspace) == 1

    live = start(workspace)

    assert refused is None
    assert seat(workspace, live) is not None
    assert sessions_in(workspace) == 1  # the expired row went with the new login


def test_removing_a_person_ends_their_sessions(workspace: WorkspaceFixture) -> None:
    # No action removes people yet; the foreign key's cascade ends their sessions whichever
    # way the row goes.
    start(workspace)

    async def remove() -> None:
        async with workspace.server.db.transaction() as connection:
            await connection.execute(
                delete(org_admins_table).where(
                    org_admins_table.c.workspace_id == workspace.id,
                    org_admins_table.c.id == workspace.made.admin.id,
                )
            )

    workspace.server.call(remove())

    assert sessions_in(workspace) == 0
