"""Every form of the settings page carries a CSRF token; a POST without the right one is
refused with 403 and changes nothing."""

from __future__ import annotations

import pytest

from tests.conftest import WorkspaceFixture
from tests.web.settings_client import SettingsClient, hidden_fields

FORMS = [
    ("/settings/api/keys", {"name": "csrf", "access": "read_only", "expires": "never"}),
    ("/settings/machine-users", {"name": "csrf machine user"}),
    ("/logout", {}),
    ("/workspace", {"workspace_id": "ws_01JD0000000000000000000000"}),
]


@pytest.fixture
def admin(workspace: WorkspaceFixture) -> SettingsClient:
    return SettingsClient(workspace.server.base_url).logged_in(
        workspace.admin_email, workspace.admin_password
    )


def keys_page(client: SettingsClient) -> str:
    return client.get("/settings/api").text


@pytest.mark.parametrize(("path", "fields"), FORMS)
def test_a_post_without_a_csrf_token_is_refused(
    admin: SettingsClient, path: str, fields: dict[str, str]
) -> None:
    before = keys_page(admin)

    answer = admin.post(path, fields)

    assert answer.status_code == 403
    assert "Form expired" in answer.text
    assert keys_page(admin).count("data-key-id") == before.count("data-key-id")


@pytest.mark.parametrize(("path", "fields"), FORMS)
def test_a_post_with_a_wrong_csrf_token_is_refused(
    admin: SettingsClient, path: str, fields: dict[str, str]
) -> None:
    answer = admin.post(path, {**fields, "csrf_token": "x" * 43})

    assert answer.status_code == 403


def test_a_revoke_without_the_token_leaves_the_key_working(
    admin: SettingsClient, workspace: WorkspaceFixture
) -> None:
    key_id = workspace.made.key.api_key.id

    answer = admin.post(f"/settings/api/keys/{key_id}/revoke", {})

    assert answer.status_code == 403
    assert workspace.client().ok("{ apiInfo }")


def test_the_token_of_another_session_does_not_work(workspace: WorkspaceFixture) -> None:
    mine = SettingsClient(workspace.server.base_url).logged_in(
        workspace.admin_email, workspace.admin_password
    )
    theirs = SettingsClient(workspace.server.base_url).logged_in(
        workspace.admin_email, workspace.admin_password
    )
    their_token = theirs.csrf_token()

    answer = mine.post(
        "/settings/machine-users", {"name": "cross-session", "csrf_token": their_token}
    )

    assert their_token != mine.csrf_token()
    assert answer.status_code == 403


def test_the_login_form_needs_its_token_too(workspace: WorkspaceFixture) -> None:
    client = SettingsClient(workspace.server.base_url)

    answer = client.post(
        "/login",
        {"email": workspace.admin_email, "password": workspace.admin_password},
    )

    assert answer.status_code == 403
    assert client.get("/settings/api").status_code == 303


def test_logging_in_gives_a_new_csrf_token(workspace: WorkspaceFixture) -> None:
    client = SettingsClient(workspace.server.base_url)
    before = hidden_fields(client.get("/login").text)["csrf_token"]

    client.logged_in(workspace.admin_email, workspace.admin_password)

    assert client.csrf_token() != before
