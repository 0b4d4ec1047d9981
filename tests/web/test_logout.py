"""Ending a settings-page login: logging out, and ending every session of a person. A copy
of the cookie taken before opens nothing afterwards, in any process."""

from __future__ import annotations

from supportdesk.domain import audit, org_admins
from tests.conftest import WorkspaceFixture
from tests.servers import RunningServer
from tests.web.settings_client import SettingsClient, hidden_fields

COOKIE = "supportdesk_session"


def logged_in(workspace: WorkspaceFixture) -> SettingsClient:
    return SettingsClient(workspace.server.base_url).logged_in(
        workspace.admin_email, workspace.admin_password
    )


def with_cookie(base_url: str, cookie: str) -> SettingsClient:
    """Another client (another address) that sends a copied session cookie."""
    client = SettingsClient(base_url)
    client.http.cookies.set(COOKIE, cookie, path="/")
    return client


def key_names(workspace: WorkspaceFixture) -> str:
    return logged_in(workspace).get("/settings/api").text


def test_a_cookie_copied_before_logout_is_sent_to_the_login_afterwards(
    workspace: WorkspaceFixture,
) -> None:
    admin = logged_in(workspace)
    copied = admin.http.cookies.get(COOKIE) or ""
    assert with_cookie(workspace.server.base_url, copied).get("/settings/api").status_code == 200

    admin.submit("/settings/api", "/logout")
    answers = [
        with_cookie(workspace.server.base_url, copied).get(path)
        for path in ("/settings/api", "/settings/api/keys/new", "/settings/audit")
    ]

    for answer in answers:
        assert answer.status_code == 303
        assert answer.headers["location"] == "/login"


def test_a_cookie_copied_before_logout_cannot_create_a_key_afterwards(
    workspace: WorkspaceFixture,
) -> None:
    admin = logged_in(workspace)
    copied = admin.http.cookies.get(COOKIE) or ""
    # The form as the copier would have it: the session's CSRF token and a fresh form token.
    form = hidden_fields(admin.get("/settings/api/keys/new").text)
    form |= {"name": "made after logout", "access": "full_access", "expires": "never"}

    admin.submit("/settings/api", "/logout")
    answer = with_cookie(workspace.server.base_url, copied).post("/settings/api/keys", form)

    assert answer.status_code == 303
    assert answer.headers["location"] == "/login"
    assert "svc_mk_" not in answer.text
    assert "made after logout" not in key_names(workspace)


def test_a_copied_cookie_cannot_choose_a_workspace_after_logout(
    workspace: WorkspaceFixture,
) -> None:
    admin = logged_in(workspace)
    copied = admin.http.cookies.get(COOKIE) or ""
    csrf = admin.csrf_token()

    admin.submit("/settings/api", "/logout")
    chooser = with_cookie(workspace.server.base_url, copied).get("/workspace")
    chosen = with_cookie(workspace.server.base_url, copied).post(
        "/workspace", {"csrf_token": csrf, "workspace_id": workspace.id}
    )

    assert chooser.status_code == 303 and chooser.headers["location"] == "/login"
    assert chosen.status_code == 303 and chosen.headers["location"] == "/login"


def test_logging_out_ends_that_login_only(workspace: WorkspaceFixture) -> None:
    at_work, at_home = logged_in(workspace), logged_in(workspace)

    at_work.submit("/settings/api", "/logout")

    assert at_work.get("/settings/api").status_code == 303
    assert at_home.get("/settings/api").status_code == 200


def test_logging_out_holds_in_every_process_at_once(workspace: WorkspaceFixture) -> None:
    admin = logged_in(workspace)
    copied = admin.http.cookies.get(COOKIE) or ""
    # Every process of a deployment has the same server key (the test servers' is configured).
    twin = RunningServer(
        workspace.server.backend,
        workspace.server.database_url,
        secret_key=workspace.server.settings.secret_key,
    ).start()
    try:
        on_twin = with_cookie(twin.base_url, copied)
        assert on_twin.get("/settings/api").status_code == 200

        admin.submit("/settings/api", "/logout")

        assert on_twin.get("/settings/api").status_code == 303
    finally:
        twin.stop()


def test_logging_in_again_ends_the_login_before(workspace: WorkspaceFixture) -> None:
    admin = logged_in(workspace)
    before = admin.http.cookies.get(COOKIE) or ""

    # The login form itself leads a logged-in browser away; an old tab may still send it.
    form = {"email": workspace.admin_email, "password": workspace.admin_password}
    again = admin.post("/login", {"csrf_token": admin.csrf_token(), **form})

    assert again.status_code == 303
    assert admin.get("/settings/api").status_code == 200
    assert with_cookie(workspace.server.base_url, before).get("/settings/api").status_code == 303


def test_ending_a_person_s_sessions_logs_out_each_of_their_logins(
    workspace: WorkspaceFixture,
) -> None:
    logins = [logged_in(workspace), logged_in(workspace)]
    server = workspace.server

    ended = server.call(
        org_admins.end_admin_sessions(
            server.db, audit.CLI_ACTOR, workspace.id, workspace.made.admin.id
        )
    )

    assert ended == 2
    for login in logins:
        answer = login.get("/settings/api")
        assert answer.status_code == 303 and answer.headers["location"] == "/login"
    assert logged_in(workspace).get("/settings/api").status_code == 200
