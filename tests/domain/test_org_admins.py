"""Org admins: creating people and checking logins (domain rules, on both backends)."""

from __future__ import annotations

import pytest

from supportdesk.domain import audit, members, org_admins
from supportdesk.domain.errors import DomainError, ErrorCode
from tests.conftest import ADMIN_PASSWORD, WorkspaceFixture, make_workspace, unique_email
from tests.servers import RunningServer


def verify(server: RunningServer, email: str, password: str) -> list[org_admins.Membership]:
    return server.call(org_admins.verify_login(server.db, email, password))


def test_the_right_password_gives_the_person_s_seat(workspace: WorkspaceFixture) -> None:
    seats = verify(workspace.server, workspace.admin_email, ADMIN_PASSWORD)

    assert [(s.admin.id, s.admin.role, s.workspace_name) for s in seats] == [
        (workspace.made.admin.id, "admin", "Test workspace")
    ]


@pytest.mark.parametrize("password", ["wrong password", "", "x" * 2000])
def test_a_wrong_password_gives_nothing(workspace: WorkspaceFixture, password: str) -> None:
    assert verify(workspace.server, workspace.admin_email, password) == []


def test_an_unknown_e_mail_gives_nothing(server: RunningServer) -> None:
    assert verify(server, unique_email("nobody"), ADMIN_PASSWORD) == []


def test_each_workspace_checks_its_own_password(server: RunningServer) -> None:
    email = unique_email()
    first = make_workspace(server, "First", email)
    second = make_workspace(server, "Second", email)
    other_password = "another long password"
    server.call(
        members.create_member(
            server.db,
            audit.CLI_ACTOR,
            make_workspace(server, "Third").id,
            email=email,
            role="admin",
            password=other_password,
        )
    )

    seats = verify(server, email, ADMIN_PASSWORD)

    assert [s.admin.workspace_id for s in seats] == [first.id, second.id]


def test_an_agent_is_a_person_of_the_workspace_but_no_admin(workspace: WorkspaceFixture) -> None:
    email = workspace.add_person("agent")

    seats = verify(workspace.server, email, ADMIN_PASSWORD)

    assert [s.admin.role for s in seats] == ["agent"]
    assert not seats[0].admin.is_admin


@pytest.mark.parametrize(
    ("email", "password", "role", "field"),
    [
        ("not an e-mail", ADMIN_PASSWORD, "admin", "email"),
        ("", ADMIN_PASSWORD, "admin", "email"),
        (None, ADMIN_PASSWORD, "admin", "email"),
        ("short@example.com", "short", "admin", "password"),
        ("role@example.com", ADMIN_PASSWORD, "owner", "role"),
    ],
)
def test_bad_input_is_refused_field_by_field(
    workspace: WorkspaceFixture, email: str | None, password: str, role: str, field: str
) -> None:
    with pytest.raises(DomainError) as refused:
        workspace.server.call(
            members.create_member(
                workspace.server.db,
                audit.CLI_ACTOR,
                workspace.id,
                email=email,
                role=role,
                password=password,
            )
        )

    assert refused.value.code == ErrorCode.VALIDATION_FAILED
    assert [f.field for f in refused.value.fields] == [field]


def test_an_e_mail_is_unique_in_a_workspace_ignoring_case(workspace: WorkspaceFixture) -> None:
    with pytest.raises(DomainError) as refused:
        workspace.add_person("agent", workspace.admin_email.upper())

    assert refused.value.code == ErrorCode.ALREADY_EXISTS


def test_adding_a_person_is_audited(workspace: WorkspaceFixture) -> None:
    email = workspace.add_person("agent")

    events = workspace.client().ok(
        "{ auditEvents(first: 1) { edges { node { action targetType data } } } }"
    )["auditEvents"]["edges"]

    assert events[0]["node"] == {
        "action": "member.created",
        "targetType": "Member",
        "data": {"email": email, "role": "agent"},
    }
