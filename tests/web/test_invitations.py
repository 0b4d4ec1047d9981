"""Invitation links (docs/settings-page.md): a member added without a password chooses one
through a link shown once, valid 7 days, used once; an admin resets a password with a new
link, which ends the member's sessions when it is used."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from tests.conftest import WorkspaceFixture, unique_email
from tests.graphql.members.helpers import MEMBERS
from tests.web.invitations import (
    NEW_PASSWORD,
    add_member,
    choose_password,
    expire_invitations,
    invited,
    stored_invitations,
)
from tests.web.settings_client import SettingsClient, hidden_fields, link_on


@pytest.fixture
def admin(workspace: WorkspaceFixture) -> SettingsClient:
    return SettingsClient(workspace.server.base_url).logged_in(
        workspace.admin_email, workspace.admin_password
    )


def member_id(workspace: WorkspaceFixture, email: str) -> str:
    edges = workspace.client().ok(MEMBERS)["members"]["edges"]
    [found] = [edge["node"]["id"] for edge in edges if edge["node"]["email"] == email]
    return str(found)


def test_an_agent_added_without_a_password_chooses_one_through_the_link_once(
    admin: SettingsClient, workspace: WorkspaceFixture
) -> None:
    email = unique_email("roy")
    answer = add_member(admin, email, name="Roy")
    link = link_on(answer.text) or ""
    path = urlsplit(link).path
    newcomer = SettingsClient(workspace.server.base_url)
    late = SettingsClient(workspace.server.base_url)
    late_form = hidden_fields(late.get(path).text)  # opened, then sent after the first

    form = newcomer.get(path)
    chosen = choose_password(newcomer, path)
    inbox = newcomer.get("/inbox/")
    again = SettingsClient(workspace.server.base_url).get(path)

    assert answer.status_code == 200 and "shown only once" in answer.text
    assert link.startswith(f"{workspace.server.base_url}/invitations/{workspace.id}.")
    assert answer.headers["cache-control"] == "no-store"
    assert link not in admin.get("/settings/members").text  # never shown again
    assert form.status_code == 200 and email in form.text and "Choose your password" in form.text
    assert (chosen.status_code, chosen.headers["location"]) == (303, "/inbox/")
    assert inbox.status_code == 200 and email in inbox.text
    assert again.status_code == 410 and "already used" in again.text
    used_again = late.post(
        path, late_form | {"password": "another one!", "confirm": "another one!"}
    )
    assert used_again.status_code == 410
    # The password chosen is the one that logs in; the other does not.
    SettingsClient(workspace.server.base_url).logged_in(email, NEW_PASSWORD)
    assert SettingsClient(workspace.server.base_url).login(email, "another one!").status_code == 401


def test_an_admin_added_without_a_password_gets_a_link_too(
    admin: SettingsClient, workspace: WorkspaceFixture
) -> None:
    email = unique_email("jen")
    path = invited(admin, email, role="admin")
    jen = SettingsClient(workspace.server.base_url)

    chosen = choose_password(jen, path)

    assert chosen.status_code == 303
    assert jen.get("/settings/api").status_code == 200


def test_a_password_that_does_not_fit_leaves_the_link_usable(
    admin: SettingsClient, workspace: WorkspaceFixture
) -> None:
    path = invited(admin, unique_email("roy"))
    newcomer = SettingsClient(workspace.server.base_url)

    mismatch = choose_password(newcomer, path, NEW_PASSWORD, "something else")
    short = choose_password(newcomer, path, "short")
    empty = choose_password(newcomer, path, "")
    too_long = choose_password(newcomer, path, "x" * 1025)
    finally_right = choose_password(newcomer, path)

    assert mismatch.status_code == 400 and "not the same" in mismatch.text
    assert short.status_code == 400 and "at least 8 characters" in short.text
    assert empty.status_code == 400 and "Choose a password" in empty.text
    assert too_long.status_code == 400 and "1,024 characters" in too_long.text
    assert finally_right.status_code == 303


def test_an_expired_link_says_so_and_sets_nothing(
    admin: SettingsClient, workspace: WorkspaceFixture
) -> None:
    email = unique_email("roy")
    path = invited(admin, email)
    newcomer = SettingsClient(workspace.server.base_url)
    form = hidden_fields(newcomer.get(path).text)  # opened in time, sent too late

    expire_invitations(workspace, member_id(workspace, email))
    opened = newcomer.get(path)
    sent = newcomer.post(path, form | {"password": NEW_PASSWORD, "confirm": NEW_PASSWORD})

    assert opened.status_code == 410 and "expired" in opened.text
    assert sent.status_code == 410
    assert SettingsClient(workspace.server.base_url).login(email, NEW_PASSWORD).status_code == 401


@pytest.mark.parametrize(
    "token",
    ["nonsense", "ws_01JD000000000000000000000.short", "ws_nothing.aaaaaaaaaaaaaaaaaaaaaaaaaaaa"],
)
def test_an_unknown_link_is_not_found(workspace: WorkspaceFixture, token: str) -> None:
    client = SettingsClient(workspace.server.base_url)

    opened = client.get(f"/invitations/{token}")
    sent = client.post(f"/invitations/{token}", {"password": NEW_PASSWORD})

    assert opened.status_code == 404 and "does not work" in opened.text
    assert sent.status_code == 403  # no form of ours: refused before anything is looked up


def test_a_link_needs_the_forms_csrf_token(
    admin: SettingsClient, workspace: WorkspaceFixture
) -> None:
    email = unique_email("roy")
    path = invited(admin, email)
    newcomer = SettingsClient(workspace.server.base_url)
    newcomer.get(path)
    fields = {"password": NEW_PASSWORD, "confirm": NEW_PASSWORD}

    missing = newcomer.post(path, fields)
    wrong = newcomer.post(path, fields | {"csrf_token": "not the token"})
    # A token of another browser's session does not do either.
    other = SettingsClient(workspace.server.base_url)
    borrowed = newcomer.post(path, fields | hidden_fields(other.get(path).text))

    assert missing.status_code == wrong.status_code == borrowed.status_code == 403
    assert SettingsClient(workspace.server.base_url).login(email, NEW_PASSWORD).status_code == 401
    assert choose_password(newcomer, path).status_code == 303  # the link still works


def test_a_reset_link_replaces_the_earlier_ones_and_ends_the_members_sessions(
    admin: SettingsClient, workspace: WorkspaceFixture
) -> None:
    email = unique_email("roy")
    first = invited(admin, email)
    roy = SettingsClient(workspace.server.base_url)
    choose_password(roy, first)
    assert roy.get("/inbox/").status_code == 200
    roy_id = member_id(workspace, email)

    reset = admin.submit("/settings/members", f"/settings/members/{roy_id}/invitation")
    second = urlsplit(link_on(reset.text) or "").path
    third = urlsplit(link_on(admin.submit("/settings/members", reset_action(roy_id)).text) or "")
    still_in = roy.get("/inbox/")  # a link alone changes nothing yet

    assert reset.status_code == 200 and "New password link" in reset.text
    assert SettingsClient(workspace.server.base_url).get(second).status_code == 404  # replaced
    assert still_in.status_code == 200
    chosen = choose_password(SettingsClient(workspace.server.base_url), third.path, "brand new pw")
    assert chosen.status_code == 303
    ended = roy.get("/inbox/")
    assert (ended.status_code, ended.headers["location"]) == (303, "/login")
    assert SettingsClient(workspace.server.base_url).login(email, NEW_PASSWORD).status_code == 401
    SettingsClient(workspace.server.base_url).logged_in(email, "brand new pw")
    actions = [
        edge["node"]["action"]
        for edge in workspace.client().ok(AUDIT)["auditEvents"]["edges"]
        if edge["node"]["action"].startswith("member.")
    ]
    assert actions.count("member.invited") == 3 and actions.count("member.password_set") == 2


AUDIT = "{ auditEvents(first: 100) { edges { node { action } } } }"


def reset_action(member: str) -> str:
    return f"/settings/members/{member}/invitation"


def test_an_agent_cannot_make_links(workspace: WorkspaceFixture) -> None:
    agent = SettingsClient(workspace.server.base_url).logged_in(
        workspace.add_person("agent"), workspace.admin_password
    )
    form = hidden_fields(agent.get("/inbox/").text)

    answer = agent.post(reset_action(workspace.made.admin.id), form)

    assert answer.status_code == 403
    assert stored_invitations(workspace) == []


def test_another_workspaces_links_and_members_are_out_of_reach(
    admin: SettingsClient, workspace: WorkspaceFixture, other_workspace: WorkspaceFixture
) -> None:
    their_admin = SettingsClient(other_workspace.server.base_url).logged_in(
        other_workspace.admin_email, other_workspace.admin_password
    )
    email = unique_email("theirs")
    theirs = invited(their_admin, email)
    their_member = member_id(other_workspace, email)
    # Their secret under our workspace's id: no such link here.
    secret = theirs.rsplit(".", 1)[1]
    moved = f"/invitations/{workspace.id}.{secret}"

    reset = admin.submit("/settings/members", reset_action(their_member))
    opened = SettingsClient(workspace.server.base_url).get(moved)

    assert reset.status_code == 404
    assert opened.status_code == 404
    assert stored_invitations(workspace) == []
    assert [member for member, _ in stored_invitations(other_workspace)] == [their_member]
    assert choose_password(SettingsClient(workspace.server.base_url), theirs).status_code == 303


def test_removing_a_member_ends_their_links(
    admin: SettingsClient, workspace: WorkspaceFixture
) -> None:
    email = unique_email("roy")
    path = invited(admin, email)
    roy = member_id(workspace, email)

    admin.submit(f"/settings/members/{roy}/remove", f"/settings/members/{roy}/remove")

    assert SettingsClient(workspace.server.base_url).get(path).status_code == 404
