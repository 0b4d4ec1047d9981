"""An invitation in a real browser (Debian's Chromium through Playwright): an admin adds an
agent without a password and copies the link shown once; in another browser the agent opens
it, chooses a password and lands in the inbox; the link then says it was used.

Each step is photographed at 1280×800 and 390×844 into tests/artifacts/invitation-*.png.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pytest

from tests.conftest import WorkspaceFixture, unique_email
from tests.servers import RunningServer
from tests.web.invitations import NEW_PASSWORD
from tests.web.settings_client import random_address
from tests.web.test_browser import Shoot, log_in, take_screenshots

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = pytest.mark.browser


@pytest.fixture
def shoot(server: RunningServer) -> Shoot:
    """Photographs pages on one backend: the pages are the same on both."""
    return take_screenshots if server.backend == "sqlite" else lambda page, name: None


def another_browser(browser: Browser, server: RunningServer) -> Page:
    """A browser profile of its own: the agent's, sharing nothing with the admin's."""
    context = browser.new_context(
        base_url=server.base_url,
        viewport={"width": 1280, "height": 800},
        extra_http_headers={"X-Forwarded-For": random_address()},
    )
    context.set_default_timeout(10_000)
    return context.new_page()


def test_an_invited_agent_chooses_a_password_and_lands_in_the_inbox(
    browser_page: Page,
    browser: Browser,
    server: RunningServer,
    workspace: WorkspaceFixture,
    shoot: Shoot,
) -> None:
    admin = browser_page
    admin.context.grant_permissions(["clipboard-read", "clipboard-write"])
    email = unique_email("roy")
    log_in(admin, workspace.admin_email, then="/settings/members")
    admin.get_by_role("link", name="Add member").click()
    admin.get_by_label("E-mail").fill(email)
    admin.get_by_label("Name").fill("Roy Trenneman")
    admin.get_by_role("button", name="Add member").click()
    admin.get_by_role("heading", name="Roy Trenneman is now a member (agent)").wait_for()
    shown = admin.locator("#secret").inner_text().strip()
    admin.get_by_role("button", name="Copy").click()
    admin.get_by_text("Copied to the clipboard.").wait_for()
    link = admin.evaluate("navigator.clipboard.readText()")
    shoot(admin, "invitation-link")

    assert link == shown
    assert re.fullmatch(rf"{re.escape(server.base_url)}/invitations/{workspace.id}\.\S+", link)
    admin.get_by_role("link", name="I have sent the link").click()
    assert link not in admin.content()  # shown once

    agent = another_browser(browser, server)
    try:
        agent.goto(link)
        agent.get_by_role("heading", name="Choose your password").wait_for()
        assert email in agent.content()
        agent.get_by_label("Password", exact=True).fill(NEW_PASSWORD)
        agent.get_by_label("Confirm password").fill("not the same")
        agent.get_by_role("button", name="Set password and log in").click()
        agent.get_by_text("The two passwords are not the same.").wait_for()
        shoot(agent, "invitation-choose-error")
        agent.get_by_label("Password", exact=True).fill(NEW_PASSWORD)
        agent.get_by_label("Confirm password").fill(NEW_PASSWORD)
        shoot(agent, "invitation-choose")
        with agent.expect_navigation(url=re.compile(r"/inbox/$")):
            agent.get_by_role("button", name="Set password and log in").click()
        agent.get_by_role("navigation", name="Views", exact=True).wait_for()
        assert agent.get_by_text(email).is_visible()
        shoot(agent, "invitation-inbox")

        agent.goto(link)
        agent.get_by_role("heading", name="This link was already used").wait_for()
        shoot(agent, "invitation-used")
        # Logged out, the password chosen logs in at /login.
        agent.goto("/inbox/")
        with agent.expect_navigation(url=re.compile(r"/login$")):
            agent.get_by_role("button", name="Log out").click()
        log_in(agent, email, NEW_PASSWORD, then="/inbox/")
        assert agent.url.endswith("/inbox/")
    finally:
        agent.context.close()

    # The admin's "Reset password" makes a new link, shown once.
    row = admin.locator("tr", has_text=email)
    row.get_by_role("button", name="Reset password of Roy Trenneman").click()
    admin.get_by_role("heading", name="New password link for Roy Trenneman").wait_for()
    assert admin.locator("#secret").inner_text().strip() != link
    shoot(admin, "invitation-reset")
