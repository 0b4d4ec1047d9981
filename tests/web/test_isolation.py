"""An org admin of workspace A sees and touches nothing of workspace B."""

from __future__ import annotations

import pytest

from supportdesk.domain import machine_users
from tests.conftest import WorkspaceFixture
from tests.web.settings_client import SettingsClient


@pytest.fixture
def admin_of_a(workspace: WorkspaceFixture) -> SettingsClient:
    return SettingsClient(workspace.server.base_url).logged_in(
        workspace.admin_email, workspace.admin_password
    )


def managed_user_id(workspace: WorkspaceFixture) -> str:
    async def find() -> str:
        return (await machine_users.managed_machine_user(workspace.server.db, workspace.id)).id

    return workspace.server.call(find())


def test_no_page_of_a_shows_anything_of_b(
    admin_of_a: SettingsClient, workspace: WorkspaceFixture, other_workspace: WorkspaceFixture
) -> None:
    b_key = other_workspace.made.key.api_key
    b_user = managed_user_id(other_workspace)
    a_key = workspace.made.key.api_key

    pages = [
        admin_of_a.get(path).text
        for path in (
            "/settings/api",
            "/settings/api/keys/new",
            "/settings/machine-users",
            f"/settings/machine-users/{managed_user_id(workspace)}",
            "/settings/audit",
        )
    ]

    for page in pages:
        for trace in (b_key.id, b_key.key_prefix, b_user, other_workspace.id, "Other workspace"):
            assert trace not in page
    assert a_key.key_prefix in pages[0]


def test_revoking_b_s_key_from_a_s_session_answers_not_found(
    admin_of_a: SettingsClient, other_workspace: WorkspaceFixture
) -> None:
    b_key = other_workspace.made.key.api_key.id

    confirm = admin_of_a.get(f"/settings/api/keys/{b_key}/revoke")
    revoke = admin_of_a.submit("/settings/api", f"/settings/api/keys/{b_key}/revoke")

    assert confirm.status_code == 404
    assert revoke.status_code == 404
    assert other_workspace.client().ok("{ apiInfo }")


def test_a_key_cannot_be_made_for_b_s_machine_user(
    admin_of_a: SettingsClient, other_workspace: WorkspaceFixture
) -> None:
    answer = admin_of_a.create_key(machine_user_id=managed_user_id(other_workspace))

    assert answer.status_code == 404
    assert "does not exist in this workspace" in answer.text
    assert "svc_mk_" not in answer.text


def test_b_s_machine_user_page_answers_not_found(
    admin_of_a: SettingsClient, other_workspace: WorkspaceFixture
) -> None:
    answer = admin_of_a.get(f"/settings/machine-users/{managed_user_id(other_workspace)}")

    assert answer.status_code == 404
    assert "Workspace API" not in answer.text


@pytest.mark.parametrize("key_id", ["key_01JD0000000000000000000000", "nonsense", "iss_x"])
def test_unknown_and_malformed_key_ids_answer_not_found(
    admin_of_a: SettingsClient, key_id: str
) -> None:
    assert admin_of_a.get(f"/settings/api/keys/{key_id}/revoke").status_code == 404
    assert (
        admin_of_a.submit("/settings/api", f"/settings/api/keys/{key_id}/revoke").status_code == 404
    )
