"""The queue in a real browser (Debian's Chromium through Playwright): an agent logs in,
works the queue with the keyboard, selects issues for a bulk change; photographed at
1280×800 and 390×844 into tests/artifacts/."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.conftest import ADMIN_PASSWORD, WorkspaceFixture
from tests.servers import RunningServer
from tests.web.inbox_stock import Stock, stock_workspace
from tests.web.test_browser import Shoot, log_in, take_screenshots

if TYPE_CHECKING:
    from playwright.sync_api import ConsoleMessage, Page

pytestmark = pytest.mark.browser


@pytest.fixture
def shoot(server: RunningServer) -> Shoot:
    """Photographs pages on one backend: the pages are the same on both."""
    return take_screenshots if server.backend == "sqlite" else lambda page, name: None


@pytest.fixture
def stock(workspace: WorkspaceFixture) -> Stock:
    return stock_workspace(workspace)


@pytest.fixture
def console_errors(browser_page: Page) -> list[str]:
    """What the page complains of: a refused script or style (CSP) shows here."""
    errors: list[str] = []

    def seen(message: ConsoleMessage) -> None:
        # The browser asks for /favicon.ico on its own; the site has none.
        if message.type == "error" and "favicon" not in message.location.get("url", ""):
            errors.append(f"{message.text} {message.location.get('url', '')}")

    browser_page.on("console", seen)
    return errors


def focused_ticket(page: Page) -> str | None:
    return page.evaluate(
        "() => document.activeElement.closest('tr') && "
        "document.activeElement.closest('tr').dataset.ticket"
    )


def test_an_agent_works_the_queue_with_the_keyboard(
    browser_page: Page, stock: Stock, shoot: Shoot, console_errors: list[str]
) -> None:
    page = browser_page
    log_in(page, stock.agent_email, ADMIN_PASSWORD, then="/inbox/")
    page.wait_for_url("**/inbox/")
    assert page.get_by_role("heading", name="Mine").is_visible()
    shoot(page, "inbox-queue")

    page.get_by_role("link", name="Unassigned").click()
    page.wait_for_url("**/inbox/?view=unassigned")
    first, second, third = (
        stock.unassigned[0],
        stock.unassigned[2],
        stock.unassigned[1],
    )
    page.get_by_role("link", name=f"#{first} Printer on fire").wait_for()
    page.wait_for_load_state("load")  # inbox.js (deferred) has registered its keys

    page.keyboard.press("j")
    assert focused_ticket(page) == str(first)
    page.keyboard.press("j")
    page.keyboard.press("j")
    page.keyboard.press("j")  # stays on the last row
    assert focused_ticket(page) == str(third)
    page.keyboard.press("k")
    assert focused_ticket(page) == str(second)

    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.id") == "queue-search"
    page.keyboard.type("jk printer")  # typed into the search, not taken as keys
    assert page.locator("#queue-search").input_value() == "jk printer"
    page.keyboard.press("Escape")
    page.keyboard.press("?")
    overlay = page.get_by_role("dialog", name="Keyboard shortcuts")
    assert overlay.is_visible()
    for described in ("Next issue", "Open the issue", "Reply", "Add a note", "Assign to me"):
        assert overlay.get_by_text(described, exact=True).is_visible()
    shoot(page, "inbox-shortcuts")
    page.keyboard.press("Escape")
    assert not overlay.is_visible()

    assert console_errors == []
    page.keyboard.press("j")
    page.keyboard.press("Enter")
    page.wait_for_url(f"**/inbox/issues/{first}")


def test_an_agent_changes_selected_issues_in_bulk(
    browser_page: Page, stock: Stock, shoot: Shoot, console_errors: list[str]
) -> None:
    page = browser_page
    log_in(page, stock.agent_email, ADMIN_PASSWORD, then="/inbox/?view=unassigned")
    page.wait_for_url("**/inbox/?view=unassigned")
    bar = page.get_by_role("form", name="Change the selected issues")
    assert not bar.is_visible()

    page.get_by_role("checkbox", name=f"Select #{stock.unassigned[0]}").check()
    page.get_by_role("checkbox", name=f"Select #{stock.unassigned[1]}").check()
    assert bar.is_visible()
    assert bar.get_by_text("2 selected").is_visible()
    bar.get_by_label("Assignee").select_option(label="Me")
    bar.get_by_label("Add label").select_option(label="bug")
    shoot(page, "inbox-bulk")
    bar.get_by_role("button", name="Apply to selected").click()

    page.get_by_text("Updated 2 issues.").wait_for()
    assert page.get_by_role("link", name=f"#{stock.unassigned[2]} Invoice twice").is_visible()
    assert page.locator("#queue-rows tr.queue-row").count() == 1
    page.get_by_role("link", name="Mine").click()
    page.get_by_role("link", name=f"#{stock.unassigned[0]} Printer on fire").wait_for()

    page.get_by_text("Save this view").click()
    page.get_by_label("View name").fill("My urgent")
    page.get_by_role("button", name="Save view").click()
    page.get_by_text("Saved the view “My urgent”.").wait_for()
    assert (
        page.get_by_role("navigation", name="Saved views")
        .get_by_role("link", name="My urgent")
        .is_visible()
    )

    page.evaluate("htmx.trigger(document.body, 'refresh-queue')")  # as a live updater does
    page.wait_for_load_state("networkidle")
    assert page.get_by_role("link", name=f"#{stock.unassigned[0]} Printer on fire").is_visible()
    assert console_errors == []
