"""An admin can do everything, so only a key holding every scope may make one, change or
remove one, or set a password; agents are added and changed with `members:manage` alone.
Without this rule a `members:manage` key could add an admin, log in to Settings as them
and leave with a Full-access key."""

from __future__ import annotations

from typing import Any

import pytest

from supportdesk.auth.scopes import SCOPES
from tests.client import GraphQLClient
from tests.conftest import ADMIN_PASSWORD, WorkspaceFixture
from tests.graphql.events.helpers import last_sequence
from tests.graphql.members.helpers import (
    MEMBERS,
    create_member,
    new_member,
    remove_member,
    update_member,
)
from tests.web.settings_client import SettingsClient

MEMBER_KEYS = ["members:manage", "members:read"]
# Every scope but one is still not enough: an admin would have the one missing.
ALL_BUT_AUDIT = sorted(set(SCOPES) - {"audit:read"})


def _manager(workspace: WorkspaceFixture, scopes: list[str]) -> GraphQLClient:
    return workspace.client(workspace.create_key(scopes))


def _emails(api: GraphQLClient) -> list[str]:
    return [edge["node"]["email"] for edge in api.ok(MEMBERS)["members"]["edges"]]


def _refused(payload: dict[str, Any]) -> None:
    assert payload["member"] is None
    assert payload["error"]["code"] == "SCOPE_ESCALATION", payload
    assert "Full-access" in payload["error"]["message"]


@pytest.mark.parametrize("scopes", [MEMBER_KEYS, ALL_BUT_AUDIT])
def test_a_key_short_of_full_access_cannot_add_an_admin_and_log_in_as_them(
    workspace: WorkspaceFixture, scopes: list[str]
) -> None:
    owner = workspace.client()
    manager = _manager(workspace, scopes)
    before = last_sequence(owner)

    payload = create_member(manager, "mallory@example.com", role="admin", password=ADMIN_PASSWORD)
    login = SettingsClient(workspace.server.base_url).login("mallory@example.com", ADMIN_PASSWORD)

    _refused(payload)
    assert "mallory@example.com" not in _emails(owner)
    assert last_sequence(owner) == before
    assert login.status_code != 303


def test_a_key_short_of_full_access_sets_no_password(workspace: WorkspaceFixture) -> None:
    owner = workspace.client()
    manager = _manager(workspace, MEMBER_KEYS)

    payload = create_member(manager, "roy@example.com", role="agent", password=ADMIN_PASSWORD)

    _refused(payload)
    assert "roy@example.com" not in _emails(owner)


def test_a_key_short_of_full_access_neither_promotes_nor_demotes(
    workspace: WorkspaceFixture,
) -> None:
    owner = workspace.client()
    agent = new_member(owner, "roy@example.com")
    second_admin = new_member(owner, "jen@example.com", role="admin")
    manager = _manager(workspace, MEMBER_KEYS)

    promoted = update_member(manager, agent["id"], role="admin")
    demoted = update_member(manager, second_admin["id"], role="agent")
    first_demoted = update_member(manager, workspace.made.admin.id, role="agent")

    for payload in (promoted, demoted, first_demoted):
        _refused(payload)
    roles = {edge["node"]["email"]: edge["node"]["role"] for edge in _members(owner)}
    assert roles["roy@example.com"] == "agent"
    assert roles["jen@example.com"] == "admin"
    assert roles[workspace.admin_email] == "admin"


def test_a_key_short_of_full_access_removes_no_admin(workspace: WorkspaceFixture) -> None:
    owner = workspace.client()
    second_admin = new_member(owner, "jen@example.com", role="admin")
    manager = _manager(workspace, MEMBER_KEYS)

    payloads = [remove_member(manager, second_admin["id"])]
    payloads.append(remove_member(manager, workspace.made.admin.id))

    for payload in payloads:
        _refused(payload)
    assert {"jen@example.com", workspace.admin_email} <= set(_emails(owner))


def test_members_manage_alone_adds_renames_and_removes_agents(
    workspace: WorkspaceFixture,
) -> None:
    owner = workspace.client()
    manager = _manager(workspace, MEMBER_KEYS)

    agent = new_member(manager, "roy@example.com", name="Roy")
    renamed = update_member(manager, agent["id"], name="Roy Trenneman")
    admin_renamed = update_member(manager, workspace.made.admin.id, name="The Boss")
    removed = remove_member(manager, agent["id"])

    assert agent["role"] == "agent"
    assert renamed["error"] is None and renamed["member"]["name"] == "Roy Trenneman"
    assert admin_renamed["error"] is None and admin_renamed["member"]["role"] == "admin"
    assert removed["error"] is None
    assert "roy@example.com" not in _emails(owner)


def test_a_full_access_key_manages_admins_and_passwords(workspace: WorkspaceFixture) -> None:
    full = _manager(workspace, sorted(SCOPES))

    admin = new_member(full, "jen@example.com", role="admin", password=ADMIN_PASSWORD)
    agent = new_member(full, "roy@example.com", password=ADMIN_PASSWORD)
    promoted = update_member(full, agent["id"], role="admin")
    demoted = update_member(full, admin["id"], role="agent")
    removed = remove_member(full, agent["id"])

    assert admin["role"] == "admin"
    assert promoted["error"] is None and promoted["member"]["role"] == "admin"
    assert demoted["error"] is None and demoted["member"]["role"] == "agent"
    assert removed["error"] is None


def _members(api: GraphQLClient) -> list[dict[str, Any]]:
    edges: list[dict[str, Any]] = api.ok(MEMBERS)["members"]["edges"]
    return edges
