"""What an org admin does on the settings page is recorded in the event log with the org
admin as actor (CONTRACT section 11): keys created and revoked, machine users created."""

from __future__ import annotations

import json

import pytest

from tests.client import GraphQLClient
from tests.conftest import WorkspaceFixture
from tests.graphql.events.helpers import events_after, last_sequence
from tests.web.settings_client import SettingsClient, secret_on


@pytest.fixture
def admin(workspace: WorkspaceFixture) -> SettingsClient:
    return SettingsClient(workspace.server.base_url).logged_in(
        workspace.admin_email, workspace.admin_password
    )


def org_admin(workspace: WorkspaceFixture) -> dict[str, str]:
    return {"type": "org_admin", "id": workspace.made.admin.id, "name": workspace.admin_email}


def test_a_key_created_on_the_page_records_api_key_created_by_the_org_admin(
    admin: SettingsClient, workspace: WorkspaceFixture, api: GraphQLClient
) -> None:
    start = last_sequence(api)

    answer = admin.create_key(name="from the page", access="read_only")

    secret = secret_on(answer.text)
    assert answer.status_code == 200 and secret, answer.text[:300]
    [event] = events_after(api, start)
    assert event["type"] == "api_key.created"
    assert event["actor"] == org_admin(workspace)
    assert event["data"]["apiKey"]["name"] == "from the page"
    assert event["data"]["apiKey"]["keyPrefix"] == secret[:12]
    assert event["data"]["apiKey"]["scopes"] == [
        "accounts:read",
        "articles:read",
        "contacts:read",
        "issues:read",
        "members:read",
    ]
    assert secret not in json.dumps(event)


def test_a_key_revoked_on_the_page_records_api_key_revoked_by_the_org_admin_once(
    admin: SettingsClient, workspace: WorkspaceFixture, api: GraphQLClient
) -> None:
    secret = secret_on(admin.create_key(name="to revoke").text) or ""
    key_id = workspace.client(secret).ok("{ apiInfo }")["apiInfo"]["key"]["id"]
    start = last_sequence(api)
    path = f"/settings/api/keys/{key_id}/revoke"

    revoked = admin.submit(path, path)
    again = admin.submit("/settings/api", path)

    assert revoked.status_code == 303 and again.status_code == 303
    [event] = events_after(api, start)
    assert event["type"] == "api_key.revoked"
    assert event["actor"] == org_admin(workspace)
    assert event["data"]["apiKey"]["id"] == key_id
    assert event["data"]["apiKey"]["status"] == "revoked"


def test_a_machine_user_created_on_the_page_records_machine_user_created_by_the_org_admin(
    admin: SettingsClient, workspace: WorkspaceFixture, api: GraphQLClient
) -> None:
    start = last_sequence(api)

    answer = admin.submit(
        "/settings/machine-users/new",
        "/settings/machine-users",
        {"name": "Made on the page", "description": "By hand"},
    )

    assert answer.status_code == 303, answer.text[:300]
    user_id = answer.headers["location"].rsplit("/", 1)[1]
    [event] = events_after(api, start)
    assert event["type"] == "machine_user.created"
    assert event["actor"] == org_admin(workspace)
    assert event["data"]["machineUser"]["id"] == user_id
    assert event["data"]["machineUser"]["name"] == "Made on the page"
