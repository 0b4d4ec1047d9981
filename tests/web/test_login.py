"""Logging in to the settings page: passwords, roles, throttling, workspaces, the cookie."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest

from tests.conftest import ADMIN_PASSWORD, WorkspaceFixture, make_workspace, unique_email
from tests.servers import RunningServer
from tests.web.settings_client import SettingsClient, hidden_fields


def session_cookie_header(answer_headers: list[str]) -> str:
    cookies = [h for h in answer_headers if h.startswith("supportdesk_session=")]
    assert len(cookies) == 1, answer_headers
    return cookies[0]


def test_an_org_admin_logs_in_and_sees_the_keys_of_their_workspace(
    workspace: WorkspaceFixture,
) -> None:
    client = SettingsClient(workspace.server.base_url)

    answer = client.login(workspace.admin_email, workspace.admin_password)
    page = client.get("/settings/api")

    assert answer.status_code == 303
    assert answer.headers["location"] == "/inbox/"
    assert page.status_code == 200
    assert "Test workspace" in page.text
    assert workspace.made.key.api_key.key_prefix in page.text
    assert workspace.key not in page.text


def test_the_e_mail_is_matched_ignoring_case_and_spaces(workspace: WorkspaceFixture) -> None:
    client = SettingsClient(workspace.server.base_url)

    answer = client.login(f"  {workspace.admin_email.upper()} ", workspace.admin_password)

    assert answer.status_code == 303


def test_pages_need_a_login(workspace: WorkspaceFixture) -> None:
    client = SettingsClient(workspace.server.base_url)

    for path in (
        "/settings/api",
        "/settings/api/keys/new",
        "/settings/machine-users",
        "/settings/audit",
    ):
        answer = client.get(path)
        assert answer.status_code == 303, path
        assert answer.headers["location"] == "/login"


def test_a_wrong_password_is_refused_and_logs_nobody_in(
    workspace: WorkspaceFixture, caplog: pytest.LogCaptureFixture
) -> None:
    client = SettingsClient(workspace.server.base_url)

    with caplog.at_level(logging.INFO, logger="supportdesk.auth"):
        answer = client.login(workspace.admin_email, "not the password")

    assert answer.status_code == 401
    assert "do not match a member" in answer.text
    assert client.get("/settings/api").status_code == 303
    # Logged with the e-mail tried and the client's address, never the password.
    [refused] = [r for r in caplog.records if r.name == "supportdesk.auth"]
    fields = refused.fields  # type: ignore[attr-defined]
    assert fields["email"] == workspace.admin_email
    assert fields["client"] == client.address  # its X-Forwarded-For, as through a proxy
    assert "not the password" not in caplog.text


def test_an_unknown_e_mail_gets_the_same_answer_as_a_wrong_password(
    workspace: WorkspaceFixture,
) -> None:
    client = SettingsClient(workspace.server.base_url)
    stranger = unique_email("nobody")

    wrong_password = client.login(workspace.admin_email, "not the password")
    unknown = client.login(stranger, "not the password")

    assert unknown.status_code == wrong_password.status_code == 401
    assert unknown.text.replace(stranger, "E") == wrong_password.text.replace(
        workspace.admin_email, "E"
    )


def test_repeated_wrong_passwords_for_one_e_mail_are_throttled(
    strict_workspace: WorkspaceFixture,
) -> None:
    workspace = strict_workspace
    limit = workspace.server.settings.login_failures_per_email
    # Each try from another address: the e-mail's own limit is what holds.
    for _ in range(limit):
        tried = SettingsClient(workspace.server.base_url).login(workspace.admin_email, "guess")
        assert tried.status_code == 401

    throttled = SettingsClient(workspace.server.base_url).login(
        workspace.admin_email, workspace.admin_password
    )

    assert throttled.status_code == 429
    assert int(throttled.headers["retry-after"]) > 0
    assert "Too many failed logins" in throttled.text


def lock_events(workspace: WorkspaceFixture) -> list[dict[str, Any]]:
    """The audit log's "logins paused" events of the workspace, newest first."""
    edges = workspace.client().ok(
        "{ auditEvents(first: 20) { edges { node { action targetId actorType actorLabel"
        " ipAddress data } } } }"
    )["auditEvents"]["edges"]
    return [edge["node"] for edge in edges if edge["node"]["action"] == "org_admin.login_locked"]


def test_wrong_passwords_from_one_address_do_not_lock_the_person_out_elsewhere(
    strict_workspace: WorkspaceFixture,
) -> None:
    workspace = strict_workspace
    limit = workspace.server.settings.login_failures_per_address_and_email
    guesser = SettingsClient(workspace.server.base_url)
    for _ in range(limit):
        assert guesser.login(workspace.admin_email, "guess").status_code == 401

    guesser_again = guesser.login(workspace.admin_email, workspace.admin_password)
    person = SettingsClient(workspace.server.base_url).login(
        workspace.admin_email, workspace.admin_password
    )

    assert guesser_again.status_code == 429  # that address, that e-mail: paused
    assert person.status_code == 303
    assert lock_events(workspace) == []


def test_the_e_mail_wide_lock_is_recorded_in_the_audit_log_of_its_workspace(
    strict_workspace: WorkspaceFixture,
) -> None:
    workspace = strict_workspace
    settings = workspace.server.settings
    colleague = workspace.add_person("admin")
    guessers = [
        SettingsClient(workspace.server.base_url) for _ in range(settings.login_failures_per_email)
    ]
    for guesser in guessers:
        assert guesser.login(workspace.admin_email, "guess").status_code == 401
    assert (
        SettingsClient(workspace.server.base_url).login(workspace.admin_email, "guess").status_code
        == 429
    )

    events = lock_events(workspace)
    page = (
        SettingsClient(workspace.server.base_url)
        .logged_in(colleague, ADMIN_PASSWORD)
        .get("/settings/audit")
        .text
    )

    assert events == [
        {
            "action": "org_admin.login_locked",
            "targetId": workspace.made.admin.id,
            "actorType": "anonymous",
            "actorLabel": "failed logins",
            "ipAddress": guessers[-1].address,
            "data": {
                "email": workspace.admin_email,
                "failures": settings.login_failures_per_email,
                "window_seconds": settings.login_throttle_seconds,
            },
        }
    ]
    assert "Logins paused" in page and workspace.admin_email in page


def test_a_client_address_with_many_failures_is_throttled_for_every_e_mail(
    strict_workspace: WorkspaceFixture,
) -> None:
    workspace = strict_workspace
    limit = workspace.server.settings.login_failures_per_address
    client = SettingsClient(workspace.server.base_url)
    for _ in range(limit):
        assert client.login(unique_email("guess"), "guess").status_code == 401

    from_there = client.login(workspace.admin_email, workspace.admin_password)
    from_elsewhere = SettingsClient(workspace.server.base_url).login(
        workspace.admin_email, workspace.admin_password
    )

    assert from_there.status_code == 429
    assert from_elsewhere.status_code == 303


def test_a_right_password_clears_the_e_mail_s_failures(
    strict_workspace: WorkspaceFixture,
) -> None:
    workspace = strict_workspace
    limit = workspace.server.settings.login_failures_per_email
    for _ in range(limit - 1):
        SettingsClient(workspace.server.base_url).login(workspace.admin_email, "guess")
    SettingsClient(workspace.server.base_url).logged_in(
        workspace.admin_email, workspace.admin_password
    )
    for _ in range(limit - 1):
        SettingsClient(workspace.server.base_url).login(workspace.admin_email, "guess")

    answer = SettingsClient(workspace.server.base_url).login(
        workspace.admin_email, workspace.admin_password
    )

    assert answer.status_code == 303


def comparable(answer: httpx.Response) -> tuple[int, str, list[tuple[str, str]]]:
    """An answer without what differs between any two: its request id, its date, and the
    CSRF token of the form it shows again (one per browser session)."""
    text = re.sub(r'name="csrf_token" value="[^"]*"', 'name="csrf_token" value=""', answer.text)
    headers = [
        (name, value)
        for name, value in answer.headers.multi_items()
        if name not in ("x-request-id", "date")
    ]
    return answer.status_code, text, headers


def test_an_agent_logs_in_to_the_inbox_and_is_refused_the_settings(
    workspace: WorkspaceFixture,
) -> None:
    agent = workspace.add_person("agent")
    client = SettingsClient(workspace.server.base_url)

    logged_in = client.login(agent, ADMIN_PASSWORD)
    inbox = client.get("/inbox/")
    settings = client.get("/settings/api")

    assert (logged_in.status_code, logged_in.headers["location"]) == (303, "/inbox/")
    assert inbox.status_code == 200
    assert settings.status_code == 403 and "Settings are for org admins" in settings.text
    # None of Settings' own pages is offered to an agent, only the way back.
    assert 'href="/settings/webhooks"' not in settings.text
    assert 'href="/inbox/">Back to the inbox</a>' in settings.text


def test_the_login_goes_on_only_to_a_page_of_this_site(workspace: WorkspaceFixture) -> None:
    def landing(wanted: str) -> str:
        client = SettingsClient(workspace.server.base_url)
        form = hidden_fields(client.get("/login", params={"next": wanted}).text)
        answer = client.post(
            "/login",
            {
                "csrf_token": form["csrf_token"],
                "email": workspace.admin_email,
                "password": workspace.admin_password,
                "next": wanted,
            },
        )
        return str(answer.headers["location"])

    assert landing("/settings/members") == "/settings/members"
    assert landing("https://evil.example/") == "/inbox/"
    assert landing("//evil.example/") == "/inbox/"
    assert landing("/\\evil.example/") == "/inbox/"


def test_an_admin_of_several_workspaces_chooses_one(server: RunningServer) -> None:
    email = unique_email()
    first = make_workspace(server, "Alpha support", email)
    second = make_workspace(server, "Beta support", email)
    client = SettingsClient(server.base_url)

    answer = client.login(email, ADMIN_PASSWORD)
    chooser = client.get("/workspace")
    chosen = client.submit("/workspace", "/workspace", {"workspace_id": second.id})
    keys = client.get("/settings/api")

    assert answer.status_code == 303
    assert answer.headers["location"] == "/workspace"
    assert "Alpha support" in chooser.text and "Beta support" in chooser.text
    assert chosen.status_code == 303
    assert second.made.key.api_key.key_prefix in keys.text
    assert first.made.key.api_key.key_prefix not in keys.text


def test_a_workspace_not_offered_at_login_cannot_be_chosen(
    workspace: WorkspaceFixture, other_workspace: WorkspaceFixture
) -> None:
    client = SettingsClient(workspace.server.base_url).logged_in(
        workspace.admin_email, workspace.admin_password
    )

    answer = client.submit("/settings/api", "/workspace", {"workspace_id": other_workspace.id})

    assert answer.status_code == 404
    assert other_workspace.made.key.api_key.key_prefix not in client.get("/settings/api").text


def test_logging_out_ends_the_session(workspace: WorkspaceFixture) -> None:
    client = SettingsClient(workspace.server.base_url).logged_in(
        workspace.admin_email, workspace.admin_password
    )
    old_cookie = client.http.cookies.get("supportdesk_session")

    answer = client.submit("/settings/api", "/logout")

    assert answer.status_code == 303
    assert client.get("/settings/api").status_code == 303
    assert client.http.cookies.get("supportdesk_session") != old_cookie


def test_the_session_cookie_is_httponly_samesite_lax_and_scoped(
    workspace: WorkspaceFixture,
) -> None:
    client = SettingsClient(workspace.server.base_url)

    answer = client.login(workspace.admin_email, workspace.admin_password)

    cookie = session_cookie_header(answer.headers.get_list("set-cookie"))
    parsed = SimpleCookie(cookie)["supportdesk_session"]
    assert parsed["httponly"] is True
    assert parsed["samesite"].lower() == "lax"
    assert parsed["path"] == "/"  # the inbox, the settings and the inbox's live stream
    assert not parsed["secure"]  # plain HTTP here: a Secure cookie would never come back
    assert workspace.admin_password not in cookie
    assert workspace.key not in cookie


def test_the_session_cookie_is_secure_over_https(workspace: WorkspaceFixture) -> None:
    # Behind a TLS-terminating proxy that the server trusts (X-Forwarded-Proto).
    client = SettingsClient(workspace.server.base_url, https=True)

    answer = client.login(workspace.admin_email, workspace.admin_password)

    cookie = session_cookie_header(answer.headers.get_list("set-cookie"))
    assert SimpleCookie(cookie)["supportdesk_session"]["secure"] is True


def test_a_forged_session_cookie_is_ignored(workspace: WorkspaceFixture) -> None:
    client = SettingsClient(workspace.server.base_url).logged_in(
        workspace.admin_email, workspace.admin_password
    )
    value = client.http.cookies.get("supportdesk_session")
    assert value
    client.http.cookies.clear()
    client.http.cookies.set("supportdesk_session", value[:-3] + "AAA", path="/settings")

    assert client.get("/settings/api").status_code == 303


def test_every_process_of_a_deployment_accepts_the_same_session(
    workspace: WorkspaceFixture,
) -> None:
    client = SettingsClient(workspace.server.base_url).logged_in(
        workspace.admin_email, workspace.admin_password
    )
    cookie = client.http.cookies.get("supportdesk_session")
    # Every process of a deployment has the same server key (the test servers' is configured).
    twin = RunningServer(
        workspace.server.backend,
        workspace.server.database_url,
        secret_key=workspace.server.settings.secret_key,
    ).start()
    configured = RunningServer(
        workspace.server.backend, workspace.server.database_url, secret_key="x" * 40
    ).start()
    try:
        on_twin = SettingsClient(twin.base_url)
        on_twin.http.cookies.set("supportdesk_session", cookie or "", path="/settings")
        on_configured = SettingsClient(configured.base_url)
        on_configured.http.cookies.set("supportdesk_session", cookie or "", path="/settings")

        assert on_twin.get("/settings/api").status_code == 200
        assert on_configured.get("/settings/api").status_code == 303
    finally:
        twin.stop()
        configured.stop()


def test_settings_leads_to_the_keys_and_unknown_addresses_get_a_page(
    workspace: WorkspaceFixture,
) -> None:
    client = SettingsClient(workspace.server.base_url).logged_in(
        workspace.admin_email, workspace.admin_password
    )

    home = client.get("/settings/")
    missing = client.get("/settings/nothing-here")
    wrong_method = client.get("/settings/api/keys")

    assert home.status_code == 303 and home.headers["location"] == "/settings/api"
    assert missing.status_code == 404 and "Page not found" in missing.text
    assert wrong_method.status_code == 405 and "Not allowed" in wrong_method.text


def test_a_chunked_form_past_the_limit_is_refused_as_a_declared_one_is(
    workspace: WorkspaceFixture,
) -> None:
    # Without a Content-Length (chunked), the body is counted as it comes: nobody logged
    # in can make a page read megabytes of form.
    client = SettingsClient(workspace.server.base_url)
    token = hidden_fields(client.get("/login").text)["csrf_token"]
    fields = [("csrf_token", token), ("email", workspace.admin_email)]
    fields += [(f"pad{index}", "x" * 60_000) for index in range(60)]
    body = urlencode(fields).encode()

    def chunks() -> Iterator[bytes]:
        for start in range(0, len(body), 64 * 1024):
            yield body[start : start + 64 * 1024]

    answer = client.http.post(
        "/login",
        content=chunks(),
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )

    assert "content-length" not in answer.request.headers
    assert answer.status_code == 413


def test_a_form_past_the_field_limits_gets_a_clear_400(workspace: WorkspaceFixture) -> None:
    client = SettingsClient(workspace.server.base_url)
    token = hidden_fields(client.get("/login").text)["csrf_token"]
    fields = [("csrf_token", token)] + [(f"field{index}", "x") for index in range(150)]

    answer = client.post("/login", fields)

    assert answer.status_code == 400 and "Form not readable" in answer.text
