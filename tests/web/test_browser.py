"""The settings page in a real browser (Debian's Chromium through Playwright).

Each page is also photographed at 1280×800 and 390×844 into tests/artifacts/.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.conftest import ADMIN_PASSWORD, WorkspaceFixture, make_workspace, unique_email
from tests.graphql.issues.helpers import CREATE, new_issue
from tests.servers import RunningServer
from tests.web.test_api_keys_page import CONTRACT_SCOPES, READ_ONLY_SCOPES

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.browser

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
SIZES = [(1280, 800), (390, 844)]


Shoot = Callable[["Page", str], None]


@pytest.fixture
def shoot(server: RunningServer) -> Shoot:
    """Photographs pages on one backend: the pages are the same on both."""
    return take_screenshots if server.backend == "sqlite" else lambda page, name: None


def take_screenshots(page: Page, name: str) -> None:
    """Screenshots of the whole page at the desktop and the phone size."""
    ARTIFACTS.mkdir(exist_ok=True)
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        page.screenshot(path=ARTIFACTS / f"{name}-{width}x{height}.png", full_page=True)
    page.set_viewport_size({"width": 1280, "height": 800})


def log_in(
    page: Page, email: str, password: str = ADMIN_PASSWORD, then: str = "/settings/api"
) -> None:
    """Log in from the login page, on the way to `then`."""
    page.goto(f"/login?next={then}")
    page.get_by_label("Email").fill(email)
    page.get_by_label("Password").fill(password)
    with page.expect_navigation():  # the next page loaded, whatever it says
        page.get_by_role("button", name="Log in").click()


def create_key(page: Page, name: str, access: str, scopes: tuple[str, ...] = ()) -> str:
    """Fill in "Create key" as a person would; the secret as the page shows it."""
    page.goto("/settings/api")
    page.get_by_role("link", name="Create key").first.click()
    page.get_by_label("Key name").fill(name)
    page.get_by_role("radio", name=access).check()
    for scope in scopes:
        page.locator(f'input[name="scopes"][value="{scope}"]').check()
    page.get_by_role("button", name="Create key").click()
    page.get_by_text("It is shown only once").wait_for()
    return page.locator("#secret").inner_text()


def test_a_custom_key_is_created_used_hidden_for_good_and_revoked(
    browser_page: Page, workspace: WorkspaceFixture, shoot: Shoot
) -> None:
    page = browser_page
    page.goto("/settings/api")
    assert page.url.endswith("/login")
    shoot(page, "login")

    log_in(page, workspace.admin_email, then="/inbox/")
    page.wait_for_url("**/inbox/")
    page.get_by_role("navigation", name="Sections").get_by_role("link", name="Settings").click()
    page.wait_for_url("**/settings/api")
    assert page.get_by_role("heading", name="API keys").is_visible()
    shoot(page, "api-keys")

    page.get_by_role("link", name="Create key").first.click()
    assert not page.locator(".scope-list").is_visible()  # only Custom shows the scope list
    shoot(page, "key-new")
    page.get_by_label("Key name").fill("Issue reader")
    page.get_by_role("radio", name="Custom").check()
    assert page.locator(".scope-list").is_visible()
    page.locator('input[name="scopes"][value="issues:read"]').check()
    shoot(page, "key-new-custom")
    page.get_by_role("button", name="Create key").click()

    page.get_by_text("It is shown only once").wait_for()
    secret = page.locator("#secret").inner_text()
    assert secret.startswith("svc_mk_") and len(secret) == 45
    assert secret not in page.url
    page.get_by_role("button", name="Copy").click()
    page.get_by_text("Copied to the clipboard.").wait_for()
    shoot(page, "key-created")

    issue = new_issue(workspace.client(), subject="Invoice missing")
    api = workspace.client(secret)
    read = api.ok(
        "query($id: ID!) { issue(id: $id) { subject messages(first: 5) { edges { node { body } } } } }",
        {"id": issue["id"]},
    )
    assert read["issue"]["subject"] == "Invoice missing"
    assert read["issue"]["messages"]["edges"][0]["node"]["body"] == "It is on fire."
    assert api.ok("{ issues(first: 5) { totalCount } }")["issues"]["totalCount"] == 1
    info = api.ok("{ apiInfo }")["apiInfo"]
    assert info["key"]["scopes"] == ["issues:read"]
    assert info["machineUser"]["name"] == "Workspace API"
    denied = api("{ apiKeys { totalCount } }")
    assert denied.error_at("apiKeys")["extensions"]["code"] == "FORBIDDEN"
    assert denied.error_at("apiKeys")["extensions"]["requiredScopes"] == ["api_keys:manage"]
    not_granted = api(
        CREATE, {"input": {"subject": "x", "body": "y", "requesterEmail": "a@b.example"}}
    )
    assert not_granted.error_at("createIssue")["extensions"]["code"] == "FORBIDDEN"

    page.reload()  # the browser sends the form again: its one-time token is spent
    assert secret not in page.content()
    assert page.locator("#secret").count() == 0
    assert page.get_by_role("heading", name="This form was already sent").is_visible()
    shoot(page, "key-resubmitted")
    page.go_back()
    assert secret not in page.content()
    page.goto("/settings/api")
    assert secret not in page.content()

    row = page.locator("tr", has_text="Issue reader")
    assert row.count() == 1  # the reload made no second key
    assert row.get_by_text("issues:read").is_visible()
    assert row.get_by_text(secret[:12]).is_visible()
    row.get_by_role("link", name="Revoke").click()
    page.get_by_text("stop working immediately").wait_for()
    shoot(page, "key-revoke")
    page.get_by_role("button", name="Revoke key").click()
    page.wait_for_url("**/settings/api")
    assert page.get_by_text("is revoked").is_visible()
    assert page.locator("tr", has_text="Issue reader").get_by_text("Revoked").is_visible()
    shoot(page, "api-keys-after-revoke")

    after = api("{ apiInfo }")
    assert after.status == 401
    assert after.errors[0]["extensions"]["reason"] == "revoked"


def test_the_presets_give_exactly_the_contract_s_scopes(
    browser_page: Page, workspace: WorkspaceFixture
) -> None:
    log_in(browser_page, workspace.admin_email)

    full = create_key(browser_page, "Everything", "Full access")
    read_only = create_key(browser_page, "Reader", "Read-only")

    assert workspace.client(full).ok("{ apiInfo }")["apiInfo"]["key"]["scopes"] == CONTRACT_SCOPES
    assert (
        workspace.client(read_only).ok("{ apiInfo }")["apiInfo"]["key"]["scopes"]
        == READ_ONLY_SCOPES
    )


def test_machine_users_and_the_audit_log(
    browser_page: Page, workspace: WorkspaceFixture, shoot: Shoot
) -> None:
    page = browser_page
    log_in(page, workspace.admin_email)
    page.get_by_role("link", name="Machine users").click()
    # A click that navigates returns once the new page commits, before it has rendered:
    # what a test reads there first, it waits for.
    page.get_by_role("cell", name="Workspace API").wait_for()
    shoot(page, "machine-users")

    page.get_by_role("link", name="New machine user").click()
    page.get_by_label("Name", exact=True).fill("CRM sync")
    page.get_by_label("Description").fill("Keeps contacts in step with the CRM")
    shoot(page, "machine-user-new")
    page.get_by_role("button", name="Create machine user").click()
    page.get_by_role("heading", name="CRM sync").wait_for()
    page.get_by_role("link", name="Create key").click()
    assert page.get_by_label("Machine user", exact=True).input_value() != ""
    page.get_by_label("Key name").fill("CRM writer")
    page.get_by_role("radio", name="Custom").check()
    page.locator('input[name="scopes"][value="contacts:write"]').check()
    page.get_by_label("Expires", exact=True).select_option("90")
    page.get_by_role("button", name="Create key").click()
    secret = page.locator("#secret").inner_text()
    info = workspace.client(secret).ok("{ apiInfo }")["apiInfo"]
    assert info["machineUser"]["name"] == "CRM sync"
    assert info["key"]["expiresAt"] is not None

    page.get_by_role("link", name="Machine users").click()
    page.get_by_role("link", name="CRM sync").click()
    page.locator("tr", has_text="CRM writer").wait_for()
    shoot(page, "machine-user")

    page.get_by_role("link", name="Audit log").click()
    page.get_by_text("Machine user created").wait_for()
    assert page.locator("tr", has_text="CRM writer").get_by_text(workspace.admin_email).is_visible()
    shoot(page, "audit-log")


def test_a_bad_form_is_shown_again_with_its_errors(
    browser_page: Page, workspace: WorkspaceFixture, shoot: Shoot
) -> None:
    page = browser_page
    log_in(page, workspace.admin_email)
    page.goto("/settings/api/keys/new")
    page.get_by_role("radio", name="Custom").check()
    page.get_by_role("button", name="Create key").click()

    page.get_by_text("Choose at least one scope.").wait_for()
    assert page.get_by_text("Give the key a name").is_visible()
    assert page.get_by_role("radio", name="Custom").is_checked()  # the choices are kept
    shoot(page, "key-new-errors")


def test_a_wrong_password_and_a_person_who_is_not_an_admin(
    browser_page: Page, workspace: WorkspaceFixture, shoot: Shoot
) -> None:
    page = browser_page
    log_in(page, workspace.admin_email, "wrong password")
    assert page.get_by_role("alert").inner_text() == (
        "That email and password do not match a member."
    )
    shoot(page, "login-failed")

    log_in(page, workspace.add_person("agent"))  # an agent works the inbox, not the settings
    page.goto("/settings/api")
    assert page.get_by_role("heading", name="Settings are for org admins").is_visible()
    assert page.get_by_role("link", name="Settings").count() == 0
    shoot(page, "settings-refused-to-an-agent")


def test_an_admin_of_two_workspaces_picks_one_and_can_switch(
    browser_page: Page, server: RunningServer, shoot: Shoot
) -> None:
    email = unique_email()
    make_workspace(server, "Acme Support", email)
    make_workspace(server, "Globex Helpdesk", email)
    page = browser_page

    log_in(page, email)
    page.wait_for_url("**/workspace")
    shoot(page, "choose-workspace")
    page.get_by_role("button", name="Globex Helpdesk").click()
    page.wait_for_url("**/inbox/")
    assert page.locator(".workspace").inner_text() == "Globex Helpdesk"

    page.get_by_role("link", name="Switch workspace").click()
    page.get_by_role("button", name="Acme Support").click()
    assert page.locator(".workspace").inner_text() == "Acme Support"

    page.get_by_role("button", name="Log out").click()
    page.wait_for_url("**/login")
    assert page.get_by_text("You have logged out.").is_visible()
    page.goto("/settings/api")
    assert page.url.endswith("/login")


def test_a_page_that_does_not_exist(
    browser_page: Page, workspace: WorkspaceFixture, shoot: Shoot
) -> None:
    log_in(browser_page, workspace.admin_email)
    answer = browser_page.goto("/settings/api/keys/key_01JD0000000000000000000000/revoke")

    assert answer is not None and answer.status == 404
    assert browser_page.get_by_role("heading", name="Key not found").is_visible()
    shoot(browser_page, "not-found")
