"""Settings → API over HTTP: creating keys (secret shown once), presets, revoking."""

from __future__ import annotations

import html
import re
from datetime import UTC, date, datetime, timedelta

import pytest

from tests.conftest import WorkspaceFixture
from tests.web.settings_client import SettingsClient, hidden_fields, secret_on

# CONTRACT section 2, written out: the presets must give exactly these.
CONTRACT_SCOPES = [
    "accounts:read",
    "accounts:write",
    "api_keys:manage",
    "articles:read",
    "articles:write",
    "audit:read",
    "contacts:read",
    "contacts:write",
    "issues:create",
    "issues:read",
    "issues:write",
    "machine_users:manage",
    "mailboxes:manage",
    "members:manage",
    "members:read",
    "thread:reply",
    "webhooks:manage",
]
READ_ONLY_SCOPES = [
    "accounts:read",
    "articles:read",
    "contacts:read",
    "issues:read",
    "members:read",
]


@pytest.fixture
def admin(workspace: WorkspaceFixture) -> SettingsClient:
    return SettingsClient(workspace.server.base_url).logged_in(
        workspace.admin_email, workspace.admin_password
    )


def api_info(workspace: WorkspaceFixture, secret: str) -> dict:
    return workspace.client(secret).ok("{ apiInfo }")["apiInfo"]


def key_count(admin: SettingsClient) -> int:
    return admin.get("/settings/api").text.count("data-key-id=")


@pytest.mark.parametrize(
    ("access", "scopes"),
    [("full_access", CONTRACT_SCOPES), ("read_only", READ_ONLY_SCOPES)],
)
def test_presets_give_exactly_the_contract_s_scopes(
    admin: SettingsClient, workspace: WorkspaceFixture, access: str, scopes: list[str]
) -> None:
    answer = admin.create_key(name=f"{access} key", access=access)

    secret = secret_on(answer.text)
    assert answer.status_code == 200 and secret, answer.text[:300]
    assert api_info(workspace, secret)["key"]["scopes"] == scopes


def test_custom_gives_exactly_the_chosen_scopes(
    admin: SettingsClient, workspace: WorkspaceFixture
) -> None:
    answer = admin.create_key(access="custom", scopes=["thread:reply", "issues:read"])

    info = api_info(workspace, secret_on(answer.text) or "")
    assert info["key"]["scopes"] == ["issues:read", "thread:reply"]
    assert info["machineUser"]["name"] == "Workspace API"


def test_custom_scopes_are_ignored_for_a_preset(
    admin: SettingsClient, workspace: WorkspaceFixture
) -> None:
    answer = admin.create_key(access="read_only", scopes=["api_keys:manage"])

    assert api_info(workspace, secret_on(answer.text) or "")["key"]["scopes"] == READ_ONLY_SCOPES


def test_the_secret_page_is_never_stored_and_the_secret_is_nowhere_else(
    admin: SettingsClient, workspace: WorkspaceFixture
) -> None:
    answer = admin.create_key(name="Billing sync")
    secret = secret_on(answer.text)
    assert secret

    assert answer.headers["cache-control"] == "no-store"
    assert "location" not in answer.headers
    assert secret not in str(answer.url)
    assert secret not in answer.headers.get("set-cookie", "")
    assert secret not in (admin.http.cookies.get("supportdesk_session") or "")
    for path in ("/settings/api", "/settings/audit", "/settings/machine-users"):
        assert secret not in admin.get(path).text
    assert secret[:12] in admin.get("/settings/api").text


def test_sending_the_form_again_does_not_make_a_second_key(admin: SettingsClient) -> None:
    form_page = admin.get("/settings/api/keys/new").text
    fields = {**hidden_fields(form_page), "name": "once", "access": "read_only"}
    before = key_count(admin)

    first = admin.post("/settings/api/keys", fields)
    again = admin.post("/settings/api/keys", fields)

    assert first.status_code == 200 and secret_on(first.text)
    assert again.status_code == 409
    assert secret_on(again.text) is None
    assert "already sent" in again.text
    assert key_count(admin) == before + 1


def test_a_made_up_form_token_makes_nothing(admin: SettingsClient) -> None:
    before = key_count(admin)

    answer = admin.submit(
        "/settings/api",
        "/settings/api/keys",
        {"name": "forged", "access": "read_only", "submission_token": "0" * 35},
    )

    assert answer.status_code == 409
    assert key_count(admin) == before


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"name": "  "}, "Give the key a name"),
        ({"name": "x" * 101}, "100 characters or fewer"),
        ({"access": "custom"}, "Choose at least one scope"),
        ({"access": "custom", "scopes": ["issues:read", "root:all"]}, "Unknown scopes: root:all"),
        ({"access": "superuser"}, "Choose Full access, Read-only or Custom"),
        ({"expires": "date", "expires_on": "2001-01-01"}, "must be in the future"),
        ({"expires": "date", "expires_on": "not a date"}, "Pick the date"),
        ({"expires": "forever"}, "Choose when the key expires"),
    ],
)
def test_bad_input_shows_the_form_again_with_the_error_and_makes_nothing(
    admin: SettingsClient, fields: dict, message: str
) -> None:
    before = key_count(admin)

    answer = admin.create_key(**fields)

    assert answer.status_code == 400
    assert message in answer.text
    assert secret_on(answer.text) is None
    assert 'name="submission_token"' in answer.text
    assert key_count(admin) == before


def test_an_expiry_in_days(admin: SettingsClient, workspace: WorkspaceFixture) -> None:
    answer = admin.create_key(expires="30")

    expires = api_info(workspace, secret_on(answer.text) or "")["key"]["expiresAt"]
    expected = datetime.now(UTC) + timedelta(days=30)
    assert abs(datetime.fromisoformat(expires.replace("Z", "+00:00")) - expected) < timedelta(
        minutes=5
    )


def test_an_expiry_on_a_date_lasts_through_that_day(
    admin: SettingsClient, workspace: WorkspaceFixture
) -> None:
    day = date.today() + timedelta(days=10)

    answer = admin.create_key(expires="date", expires_on=day.isoformat())

    expires = api_info(workspace, secret_on(answer.text) or "")["key"]["expiresAt"]
    assert expires == f"{day + timedelta(days=1)}T00:00:00.000Z"


def test_a_key_for_a_chosen_machine_user(
    admin: SettingsClient, workspace: WorkspaceFixture
) -> None:
    made = admin.submit(
        "/settings/machine-users/new", "/settings/machine-users", {"name": "CRM sync"}
    )
    user_id = made.headers["location"].rsplit("/", 1)[1]

    answer = admin.create_key(machine_user_id=user_id, access="custom", scopes="issues:read")

    assert api_info(workspace, secret_on(answer.text) or "")["machineUser"] == {
        "id": user_id,
        "name": "CRM sync",
    }
    assert "CRM sync" in admin.get(f"/settings/machine-users/{user_id}").text


def test_revoking_stops_the_key_at_once(admin: SettingsClient, workspace: WorkspaceFixture) -> None:
    secret = secret_on(admin.create_key(name="to revoke").text) or ""
    key_id = api_info(workspace, secret)["key"]["id"]

    confirm = admin.get(f"/settings/api/keys/{key_id}/revoke")
    revoked = admin.submit(
        f"/settings/api/keys/{key_id}/revoke", f"/settings/api/keys/{key_id}/revoke"
    )
    after = workspace.client(secret)("{ apiInfo }")

    assert confirm.status_code == 200 and "stop working immediately" in confirm.text
    assert revoked.status_code == 303
    assert "is revoked" in admin.get("/settings/api").text
    assert after.status == 401
    assert after.errors[0]["extensions"]["reason"] == "revoked"


def test_revoking_twice_changes_nothing(admin: SettingsClient, workspace: WorkspaceFixture) -> None:
    key_id = workspace.made.key.api_key.id
    path = f"/settings/api/keys/{key_id}/revoke"
    admin.submit(path, path)

    confirm = admin.get(path)
    again = admin.submit("/settings/api", path)

    assert "was revoked on" in confirm.text
    assert 'action="' + path not in confirm.text
    assert again.status_code == 303


def test_creating_and_revoking_are_audited_with_the_org_admin_as_actor(
    admin: SettingsClient, workspace: WorkspaceFixture
) -> None:
    secret = secret_on(admin.create_key(name="audited").text) or ""
    key_id = api_info(workspace, secret)["key"]["id"]
    admin.submit("/settings/api", f"/settings/api/keys/{key_id}/revoke")

    events = workspace.client().ok(
        "{ auditEvents(first: 5) { edges { node { action targetId actorType actorId"
        " actorLabel ipAddress } } } }"
    )["auditEvents"]["edges"]

    mine = [edge["node"] for edge in events if edge["node"]["targetId"] == key_id]
    assert [event["action"] for event in mine] == ["api_key.revoked", "api_key.created"]
    for event in mine:
        assert event["actorType"] == "org_admin"
        assert event["actorLabel"] == workspace.admin_email
        assert event["actorId"] == workspace.made.admin.id
        assert event["ipAddress"] == admin.address
    page = admin.get("/settings/audit").text
    assert "Key revoked" in page and workspace.admin_email in page and admin.address in page


def test_long_lists_come_in_pages(admin: SettingsClient, workspace: WorkspaceFixture) -> None:
    for number in range(55):
        workspace.create_key(["issues:read"], name=f"bulk key {number:02}")

    first = admin.get("/settings/api").text
    next_link = re.search(r'href="(/settings/api\?after=[^"]+)"', first)
    assert next_link
    second = admin.get(html.unescape(next_link.group(1))).text
    audit_first = admin.get("/settings/audit").text
    older = re.search(r'href="(/settings/audit\?after=[^"]+)"', audit_first)
    assert older
    audit_second = admin.get(html.unescape(older.group(1))).text

    assert first.count("data-key-id=") == 50
    assert second.count("data-key-id=") == 6  # 55 + the workspace's first key
    assert "bulk key 54" in second and "bulk key 54" not in first
    assert "bulk key 54" in audit_first and "Initial full-access key" in audit_second
    assert admin.get("/settings/api?after=not-a-cursor").status_code == 303
