"""Settings → Members: the workspace's people, added with a role, their role changed and
removed; the last admin stays; a new admin logs in."""

from __future__ import annotations

import re

import pytest

from tests.conftest import WorkspaceFixture, unique_email
from tests.graphql.events.helpers import events_after, last_sequence, types_of
from tests.graphql.issues.helpers import new_issue
from tests.graphql.members.helpers import MEMBERS, assign, new_member
from tests.web.settings_client import SettingsClient


@pytest.fixture
def admin(workspace: WorkspaceFixture) -> SettingsClient:
    return SettingsClient(workspace.server.base_url).logged_in(
        workspace.admin_email, workspace.admin_password
    )


def add(admin: SettingsClient, **fields: str):  # type: ignore[no-untyped-def]
    values = {"email": "", "name": "", "role": "agent", "password": "", **fields}
    return admin.submit("/settings/members/new", "/settings/members", values)


def members_by_email(workspace: WorkspaceFixture) -> dict[str, dict[str, str]]:
    edges = workspace.client().ok(MEMBERS)["members"]["edges"]
    return {edge["node"]["email"]: edge["node"] for edge in edges}


def test_an_admin_adds_an_agent_and_an_admin_who_can_log_in(
    admin: SettingsClient, workspace: WorkspaceFixture
) -> None:
    jen = unique_email("jen")  # logins meet every workspace of the shared database
    agent = add(admin, email="roy@example.com", name="Roy Trenneman")
    second = add(admin, email=jen, role="admin", password="jen's long password")

    # Without a password the answer is the member's invitation link (tests/web/test_invitations.py).
    assert agent.status_code == 200 and "/invitations/" in agent.text
    assert second.status_code == 303
    page = admin.get("/settings/members").text
    assert "Roy Trenneman" in page and "roy@example.com" in page and jen in page
    found = members_by_email(workspace)
    assert (found["roy@example.com"]["role"], found[jen]["role"]) == ("agent", "admin")
    login = SettingsClient(workspace.server.base_url).login(jen, "jen's long password")
    assert login.status_code == 303 and login.headers["location"].endswith("/inbox/")


def test_a_bad_form_comes_back_with_its_errors_and_adds_nobody(
    admin: SettingsClient, workspace: WorkspaceFixture
) -> None:
    short_password = add(admin, email="jen@example.com", role="admin", password="short")
    bad_email = add(admin, email="not an address")
    taken = add(admin, email=workspace.admin_email.upper())

    assert short_password.status_code == 400
    assert "Use at least 8 characters" in short_password.text
    assert bad_email.status_code == 400 and "Enter an e-mail address like" in bad_email.text
    assert taken.status_code == 400 and "already belongs to this workspace" in taken.text
    assert list(members_by_email(workspace)) == [workspace.admin_email]


def test_roles_change_but_the_last_admin_stays(
    admin: SettingsClient, workspace: WorkspaceFixture
) -> None:
    add(admin, email="roy@example.com")
    roy = members_by_email(workspace)["roy@example.com"]["id"]
    me = workspace.made.admin.id

    refused = admin.submit("/settings/members", f"/settings/members/{me}/role", {"role": "agent"})
    told = admin.get("/settings/members").text
    promoted = admin.submit("/settings/members", f"/settings/members/{roy}/role", {"role": "admin"})
    demoted_me = admin.submit(
        "/settings/members", f"/settings/members/{me}/role", {"role": "agent"}
    )

    assert refused.status_code == promoted.status_code == demoted_me.status_code == 303
    assert "keeps at least one admin" in told
    roles = {email: member["role"] for email, member in members_by_email(workspace).items()}
    assert roles == {workspace.admin_email: "agent", "roy@example.com": "admin"}
    # No longer an admin, the page turns them away at once.
    assert admin.get("/settings/api").status_code == 403


def test_removing_a_member_asks_first_and_unassigns_their_issues(
    admin: SettingsClient, workspace: WorkspaceFixture
) -> None:
    api = workspace.client()
    roy = new_member(api, "roy@example.com", name="Roy")["id"]
    issue = new_issue(api)["id"]
    assign(api, issue, roy)
    since = last_sequence(api)

    confirm = admin.get(f"/settings/members/{roy}/remove")
    removed = admin.submit(f"/settings/members/{roy}/remove", f"/settings/members/{roy}/remove", {})

    assert confirm.status_code == 200 and "Remove Roy?" in confirm.text
    assert "issues become unassigned" in confirm.text
    assert removed.status_code == 303
    assert "roy@example.com" not in members_by_email(workspace)
    assignee = api.ok(
        "query($id: ID!) { issue(id: $id) { assignee { __typename } } }", {"id": issue}
    )
    assert assignee["issue"]["assignee"] is None
    [event] = events_after(api, since)
    assert types_of([event]) == ["member.removed"]
    assert event["actor"]["type"] == "org_admin"
    assert event["actor"]["id"] == workspace.made.admin.id


def test_the_last_admin_cannot_remove_themselves(
    admin: SettingsClient, workspace: WorkspaceFixture
) -> None:
    me = workspace.made.admin.id

    page = admin.get("/settings/members").text
    answer = admin.submit(f"/settings/members/{me}/remove", f"/settings/members/{me}/remove", {})

    assert "Last admin" in page
    assert not re.search(rf'href="/settings/members/{me}/remove"', page)
    assert answer.status_code == 303
    assert "keeps at least one admin" in admin.get("/settings/members").text
    assert list(members_by_email(workspace)) == [workspace.admin_email]


def test_another_workspaces_member_is_not_found_here(
    admin: SettingsClient, other_workspace: WorkspaceFixture
) -> None:
    theirs = new_member(other_workspace.client(), "theirs@example.com")["id"]

    confirm = admin.get(f"/settings/members/{theirs}/remove")
    removed = admin.submit("/settings/members", f"/settings/members/{theirs}/remove", {})

    assert confirm.status_code == 404 and removed.status_code == 404
    assert "theirs@example.com" in members_by_email(other_workspace)
