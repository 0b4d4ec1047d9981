"""Invitation links in the domain (both backends): a link sets one password, however many
use it at once; a newer link replaces the unused ones."""

from __future__ import annotations

import asyncio

import pytest

from supportdesk.domain import audit, members
from supportdesk.domain.errors import DomainError, ErrorCode
from supportdesk.domain.org_admins import OrgAdmin
from tests.conftest import WorkspaceFixture, unique_email


def invite(workspace: WorkspaceFixture) -> members.AddedMember:
    server = workspace.server
    return server.call(
        members.add_member(
            server.db, audit.CLI_ACTOR, workspace.id, email=unique_email("roy"), role="agent"
        )
    )


def test_two_uses_of_one_link_at_once_set_one_password(workspace: WorkspaceFixture) -> None:
    added = invite(workspace)
    assert added.invitation is not None
    token = added.invitation.token
    db = workspace.server.db

    async def both() -> list[object]:
        return await asyncio.gather(
            members.accept_invitation(db, token, "the first password", None),
            members.accept_invitation(db, token, "the other password", None),
            return_exceptions=True,
        )

    outcomes = workspace.server.call(both())

    seats = [o for o in outcomes if isinstance(o, OrgAdmin)]
    refused = [o for o in outcomes if isinstance(o, members.InvitationUnusable)]
    assert len(seats) == 1 and seats[0].id == added.member.id
    assert [error.reason for error in refused] == ["used"]


def test_a_newer_link_replaces_the_unused_one(workspace: WorkspaceFixture) -> None:
    added = invite(workspace)
    server = workspace.server
    assert added.invitation is not None

    newer = server.call(
        members.invite_member(server.db, audit.CLI_ACTOR, workspace.id, added.member.id)
    )

    with pytest.raises(members.InvitationUnusable) as replaced:
        server.call(members.open_invitation(server.db, added.invitation.token))
    assert replaced.value.reason == "unknown"
    assert newer.invitation is not None
    found = server.call(members.open_invitation(server.db, newer.invitation.token))
    assert found.member_id == added.member.id


def test_a_key_short_of_full_access_makes_no_link(workspace: WorkspaceFixture) -> None:
    added = invite(workspace)
    server = workspace.server

    with pytest.raises(DomainError) as refused:
        server.call(
            members.invite_member(
                server.db,
                audit.CLI_ACTOR,
                workspace.id,
                added.member.id,
                key_scopes=frozenset({"members:manage"}),
            )
        )
    assert refused.value.code == ErrorCode.SCOPE_ESCALATION
