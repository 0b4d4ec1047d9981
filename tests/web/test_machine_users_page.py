"""Machine users on the settings page: listing, creating, their keys; the audit log view."""

from __future__ import annotations

import pytest

from tests.conftest import WorkspaceFixture
from tests.web.settings_client import SettingsClient, secret_on


@pytest.fixture
def admin(workspace: WorkspaceFixture) -> SettingsClient:
    return SettingsClient(workspace.server.base_url).logged_in(
        workspace.admin_email, workspace.admin_password
    )


def create_user(admin: SettingsClient, name: str, description: str = "") -> str:
    answer = admin.submit(
        "/settings/machine-users/new",
        "/settings/machine-users",
        {"name": name, "description": description},
    )
    assert answer.status_code == 303, answer.text[:300]
    return answer.headers["location"].rsplit("/", 1)[1]


def test_the_list_shows_the_managed_user_and_new_ones(admin: SettingsClient) -> None:
    create_user(admin, "Zendesk import", "Moves old tickets over")

    page = admin.get("/settings/machine-users").text

    assert "Workspace API" in page and "Managed" in page
    assert "Zendesk import" in page and "Moves old tickets over" in page


def test_a_new_user_s_page_lists_its_keys(admin: SettingsClient) -> None:
    user_id = create_user(admin, "Status page")
    first_visit = admin.get(f"/settings/machine-users/{user_id}").text
    secret = secret_on(
        admin.create_key(name="status reader", machine_user_id=user_id, access="read_only").text
    )

    page = admin.get(f"/settings/machine-users/{user_id}")

    assert page.status_code == 200
    assert "Machine user “Status page” created" in first_visit
    assert "no keys yet" in first_visit
    assert "status reader" in page.text and (secret or "")[:12] in page.text
    assert f"/settings/api/keys/new?machine_user={user_id}" in page.text


def test_the_key_form_preselects_a_machine_user(admin: SettingsClient) -> None:
    user_id = create_user(admin, "Preselected")

    page = admin.get(f"/settings/api/keys/new?machine_user={user_id}").text

    assert f'<option value="{user_id}" selected>' in page


def test_names_are_unique_ignoring_case(admin: SettingsClient) -> None:
    create_user(admin, "Billing")

    answer = admin.submit(
        "/settings/machine-users/new", "/settings/machine-users", {"name": "billing"}
    )

    assert answer.status_code == 400
    assert "already exists" in answer.text


def test_a_name_is_required(admin: SettingsClient) -> None:
    answer = admin.submit("/settings/machine-users/new", "/settings/machine-users", {"name": " "})

    assert answer.status_code == 400
    assert "Give the machine user a name" in answer.text


def test_the_audit_log_shows_machine_user_and_key_events_with_who_and_where(
    admin: SettingsClient, workspace: WorkspaceFixture
) -> None:
    create_user(admin, "Audited bot")

    page = admin.get("/settings/audit").text

    assert "Machine user created" in page and "Audited bot" in page
    assert "Key created" in page and "Initial full-access key" in page
    assert workspace.admin_email in page and admin.address in page
    assert "command line" in page
