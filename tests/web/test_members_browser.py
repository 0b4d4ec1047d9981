"""Settings → Members in a real browser (Debian's Chromium through Playwright): add an agent
and an admin, change a role, remove a member after confirming; the last admin stays.

Each step is photographed at 1280×800 and 390×844 into tests/artifacts/members-*.png.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.conftest import WorkspaceFixture
from tests.graphql.members.helpers import MEMBERS
from tests.servers import RunningServer
from tests.web.test_browser import Shoot, log_in, take_screenshots

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.browser


@pytest.fixture
def shoot(server: RunningServer) -> Shoot:
    """Photographs pages on one backend: the pages are the same on both."""
    return take_screenshots if server.backend == "sqlite" else lambda page, name: None


def roles(workspace: WorkspaceFixture) -> dict[str, str]:
    edges = workspace.client().ok(MEMBERS)["members"]["edges"]
    return {edge["node"]["email"]: edge["node"]["role"] for edge in edges}


def test_members_are_added_changed_and_removed(
    browser_page: Page, workspace: WorkspaceFixture, shoot: Shoot
) -> None:
    page = browser_page
    log_in(page, workspace.admin_email)
    page.get_by_role("link", name="Members").click()
    page.get_by_role("heading", name="Members").wait_for()
    me = page.locator("tr", has_text=workspace.admin_email)
    assert me.get_by_text("Last admin").is_visible()
    assert me.get_by_role("combobox").is_disabled()
    shoot(page, "members")

    page.get_by_role("link", name="Add member").click()
    page.get_by_label("E-mail").fill("roy@example.com")
    page.get_by_label("Name").fill("Roy Trenneman")
    shoot(page, "members-new")
    page.get_by_role("button", name="Add member").click()
    # No password: the answer is Roy's invitation link (tests/web/test_invitations_browser.py).
    page.get_by_role("heading", name="Roy Trenneman is now a member (agent)").wait_for()
    page.get_by_role("link", name="I have sent the link").click()

    page.get_by_role("link", name="Add member").click()
    page.get_by_label("E-mail").fill("jen@example.com")
    page.get_by_role("radio", name="Admin").check()
    page.get_by_role("textbox", name="Password").fill("short")
    page.get_by_role("button", name="Add member").click()
    page.get_by_text("Use at least 8 characters.").wait_for()
    shoot(page, "members-new-error")
    page.get_by_role("textbox", name="Password").fill("jen's long password")
    page.get_by_role("button", name="Add member").click()
    page.get_by_text("is now a member (admin).").wait_for()
    assert roles(workspace)["jen@example.com"] == "admin"

    roy = page.locator("tr", has_text="roy@example.com")
    roy.get_by_role("combobox").select_option("admin")
    roy.get_by_role("button", name="Change").click()
    page.get_by_text("Roy Trenneman is now an admin.").wait_for()
    assert roles(workspace)["roy@example.com"] == "admin"
    assert page.locator("tr", has_text=workspace.admin_email).get_by_role("combobox").is_enabled()
    shoot(page, "members-three")

    page.locator("tr", has_text="roy@example.com").get_by_role("link", name="Remove").click()
    page.get_by_role("heading", name="Remove Roy Trenneman?").wait_for()
    shoot(page, "members-remove")
    page.get_by_role("button", name="Remove member").click()
    page.get_by_text("Roy Trenneman was removed").wait_for()
    assert "roy@example.com" not in roles(workspace)
    assert page.locator("tr", has_text="roy@example.com").count() == 0
