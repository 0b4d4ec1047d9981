"""`createMember` answers `invitationUrl`: the one-time link with which a member added
without a password chooses one (docs/settings-page.md). Null when a password was given,
and for a key short of Full access, whose holder could otherwise log in as the member."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest

from tests.conftest import WorkspaceFixture, make_workspace, unique_email
from tests.graphql.members.helpers import create_member
from tests.servers import RunningServer
from tests.web.invitations import NEW_PASSWORD, choose_password, stored_invitations
from tests.web.settings_client import SettingsClient


def test_a_member_without_a_password_gets_a_link_that_logs_them_in(
    workspace: WorkspaceFixture,
) -> None:
    email = unique_email("roy")

    payload = create_member(workspace.client(), email)

    assert payload["error"] is None
    link = payload["invitationUrl"]
    assert link.startswith(f"{workspace.server.base_url}/invitations/{workspace.id}.")
    roy = SettingsClient(workspace.server.base_url)
    assert choose_password(roy, urlsplit(link).path).status_code == 303
    assert roy.get("/inbox/").status_code == 200
    SettingsClient(workspace.server.base_url).logged_in(email, NEW_PASSWORD)


def test_a_password_given_means_no_link(workspace: WorkspaceFixture) -> None:
    payload = create_member(workspace.client(), unique_email("jen"), password=NEW_PASSWORD)

    assert payload["error"] is None and payload["invitationUrl"] is None
    assert stored_invitations(workspace) == []


def test_a_key_short_of_full_access_adds_the_agent_without_a_link(
    workspace: WorkspaceFixture,
) -> None:
    manager = workspace.client(workspace.create_key(["members:manage", "members:read"]))

    payload = create_member(manager, unique_email("roy"))

    assert payload["error"] is None and payload["member"]["role"] == "agent"
    assert payload["invitationUrl"] is None
    assert stored_invitations(workspace) == []


def test_a_refused_member_gets_no_link(workspace: WorkspaceFixture) -> None:
    payload = create_member(workspace.client(), workspace.admin_email)

    assert payload["error"]["code"] == "ALREADY_EXISTS"
    assert payload["member"] is None and payload["invitationUrl"] is None
    assert stored_invitations(workspace) == []


@pytest.fixture
def behind_a_proxy(server: RunningServer) -> Iterator[RunningServer]:
    """A server whose deployment says where people reach it."""
    running = RunningServer(
        server.backend, server.database_url, base_url="https://desk.example.test/"
    ).start()
    yield running
    running.stop()


def test_the_link_is_on_the_deployments_base_url(behind_a_proxy: RunningServer) -> None:
    workspace = make_workspace(behind_a_proxy)

    link = create_member(workspace.client(), unique_email("roy"))["invitationUrl"]

    assert link.startswith(f"https://desk.example.test/invitations/{workspace.id}.")
    opened = SettingsClient(behind_a_proxy.base_url).get(urlsplit(link).path)
    assert opened.status_code == 200
