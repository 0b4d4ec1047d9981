"""Live updates and collision in a real browser (Debian's Chromium through Playwright): a
new issue appears in an open queue, a reply in an open issue page, without a reload; two
agents in two browsers see each other on an issue, viewing, then writing a reply.

Photographed at 1280×800 and 390×844 into tests/artifacts/live-*.png."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from tests.conftest import ADMIN_PASSWORD, WorkspaceFixture
from tests.graphql.issues.helpers import new_issue, reply
from tests.servers import RunningServer
from tests.web.settings_client import random_address
from tests.web.test_browser import Shoot, log_in, take_screenshots

if TYPE_CHECKING:
    from playwright.sync_api import Browser, ConsoleMessage, Page

pytestmark = pytest.mark.browser

# What the contract promises: a change shows within 2 s, presence is fresh within 5 s.
LIVE_MS = 2_000
PRESENCE_MS = 5_000


@pytest.fixture
def shoot(server: RunningServer) -> Shoot:
    """Photographs pages on one backend: the pages are the same on both."""
    return take_screenshots if server.backend == "sqlite" else lambda page, name: None


@pytest.fixture
def agents(browser: Browser, server: RunningServer) -> Iterator[list[Page]]:
    """Two browsers of their own (separate cookies), as two agents at two desks."""
    contexts = []
    for _ in range(2):
        context = browser.new_context(
            base_url=server.base_url,
            viewport={"width": 1280, "height": 800},
            extra_http_headers={"X-Forwarded-For": random_address()},
        )
        context.set_default_timeout(10_000)
        contexts.append(context)
    yield [context.new_page() for context in contexts]
    for context in contexts:
        context.close()


def console_errors(page: Page) -> list[str]:
    """What the page complains of from now on: a script or stream the CSP refused."""
    errors: list[str] = []

    def seen(message: ConsoleMessage) -> None:
        if message.type == "error" and "favicon" not in message.location.get("url", ""):
            errors.append(f"{message.text} {message.location.get('url', '')}")

    page.on("console", seen)
    return errors


def wait_until_live(page: Page) -> None:
    """The page's stream is open (static/inbox_live.js marks it)."""
    page.locator('#live-events[data-live-state="open"]').wait_for(state="attached")


def after_of(page: Page) -> int:
    """The sequence the page's stream would be opened after, were it opened anew."""
    address = page.locator("#live-events").get_attribute("sse-connect") or ""
    return int(address.rsplit("after=", 1)[1])


def mark_page(page: Page) -> None:
    """A mark a reload would wipe."""
    page.evaluate("window.notReloaded = true")


def not_reloaded(page: Page) -> bool:
    return bool(page.evaluate("window.notReloaded === true"))


def test_a_new_issue_appears_in_the_open_queue_within_2_seconds(
    browser_page: Page, workspace: WorkspaceFixture, shoot: Shoot
) -> None:
    page = browser_page
    errors = console_errors(page)
    log_in(page, workspace.add_person("agent"), ADMIN_PASSWORD, then="/inbox/?view=open")
    page.goto("/inbox/?view=open")
    wait_until_live(page)
    mark_page(page)
    rendered_at = after_of(page)

    started = time.monotonic()
    new_issue(workspace.client(), subject="The lift is stuck between floors")
    row = page.get_by_role("link", name=re.compile("The lift is stuck between floors"))
    row.wait_for(timeout=LIVE_MS)
    shown_after = time.monotonic() - started

    assert not_reloaded(page)
    assert shown_after < LIVE_MS / 1000
    # Were the stream refused and opened anew, it would go on from what the page saw.
    assert after_of(page) > rendered_at
    # Several at once refresh the rows once, and all of them show.
    api = workspace.client()
    for number in range(3):
        new_issue(api, subject=f"Burst {number}")
    page.get_by_role("link", name=re.compile("Burst 2")).wait_for(timeout=LIVE_MS)
    assert page.get_by_role("link", name=re.compile("Burst 0")).is_visible()
    # The views' counts follow.
    views = page.get_by_role("navigation", name="Views")
    all_open = views.get_by_role("link", name=re.compile("All open"))
    all_open.locator(".count", has_text=re.compile("^4$")).wait_for(timeout=LIVE_MS)
    assert errors == []
    shoot(page, "live-queue")


def test_a_reply_over_the_api_appears_in_an_open_issue_page_and_counts_as_seen(
    browser_page: Page, workspace: WorkspaceFixture, shoot: Shoot
) -> None:
    api = workspace.client()
    issue = new_issue(api, subject="The coffee machine speaks French")
    page = browser_page
    errors = console_errors(page)
    log_in(page, workspace.add_person("agent"), ADMIN_PASSWORD, then="/inbox/")
    page.goto(f"/inbox/issues/{issue['ticketNumber']}")
    wait_until_live(page)
    mark_page(page)

    started = time.monotonic()
    reply(api, issue["id"], "Bonjour: it was set to French by the last visitor.")
    arrived = page.locator("#thread .msg-new").get_by_text("Bonjour")
    arrived.wait_for(timeout=LIVE_MS)
    shown_after = time.monotonic() - started
    reply(api, issue["id"], "Solved over the API.", status="solved")
    page.locator("#issue-badges").get_by_text("Solved").wait_for(timeout=LIVE_MS)

    assert not_reloaded(page)
    assert shown_after < LIVE_MS / 1000
    assert page.get_by_label("Status").input_value() == "solved"
    shoot(page, "live-issue")
    # What the page showed live is seen: a reply sent now is not held for it.
    page.get_by_label("Message").fill("Merci, all fixed then.")
    with page.expect_navigation():
        page.get_by_role("button", name="Send reply").click()
    page.get_by_text("Reply sent.").wait_for()
    assert errors == []


def test_two_agents_see_each_other_viewing_then_writing_a_reply(
    agents: list[Page], workspace: WorkspaceFixture, shoot: Shoot
) -> None:
    issue = new_issue(workspace.client(), subject="Two agents, one customer")
    jen, roy = agents
    jen_email, roy_email = workspace.add_person("agent"), workspace.add_person("agent")
    for page, email in ((jen, jen_email), (roy, roy_email)):
        log_in(page, email, ADMIN_PASSWORD, then="/inbox/")
        page.goto(f"/inbox/issues/{issue['ticketNumber']}")

    roy_on_jens_page = jen.locator(".presence", has_text=roy_email)
    roy_on_jens_page.get_by_text("is viewing").wait_for(timeout=PRESENCE_MS)
    jen_on_roys_page = roy.locator(".presence", has_text=jen_email)
    jen_on_roys_page.get_by_text("is viewing").wait_for(timeout=PRESENCE_MS)

    started = time.monotonic()
    roy.get_by_label("Message").press_sequentially("Hello, I am looking")
    roy_on_jens_page.get_by_text("is writing a reply").wait_for(timeout=PRESENCE_MS)
    writing_shown_after = time.monotonic() - started
    shoot(jen, "live-presence")

    roy.get_by_label("Message").fill("")
    roy_on_jens_page.get_by_text("is viewing").wait_for(timeout=PRESENCE_MS)
    roy.goto("/inbox/")  # Roy leaves the issue
    roy_on_jens_page.wait_for(state="detached", timeout=PRESENCE_MS)

    assert writing_shown_after < PRESENCE_MS / 1000
