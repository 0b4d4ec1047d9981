"""The inbox's issue page in a real browser (Debian's Chromium through Playwright): an agent
opens an issue, replies and adds a note with the keyboard, changes status, assignee and
labels, uploads a file from the composer, and has a stale reply held.

Photographed at 1280×800 and 390×844 into tests/artifacts/issue-*.png."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pytest

from tests.conftest import WorkspaceFixture
from tests.graphql.issues.helpers import add_note, reply
from tests.graphql.labels.helpers import add_labels, new_label
from tests.servers import RunningServer
from tests.web.issue_page_steps import AGENT_PASSWORD, make_agent, make_issue, thread_of
from tests.web.test_browser import Shoot, log_in, take_screenshots

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.browser


@pytest.fixture
def shoot(server: RunningServer) -> Shoot:
    """Photographs pages on one backend: the pages are the same on both."""
    return take_screenshots if server.backend == "sqlite" else lambda page, name: None


# The elements that reach past the right edge of the window, innermost first.
_OVERFLOWING = """() => Array.from(document.querySelectorAll('body *'))
  .filter(e => e.getBoundingClientRect().right > window.innerWidth + 0.5)
  .map(e => e.tagName + '.' + e.className + '#' + e.id + ' ' +
       Math.round(e.getBoundingClientRect().right)).reverse()"""


def _fits_a_phone(page: Page) -> list[str]:
    """What does not fit 390 px: nothing, or the elements that stick out."""
    page.set_viewport_size({"width": 390, "height": 844})
    try:
        return list(page.evaluate(_OVERFLOWING))
    finally:
        page.set_viewport_size({"width": 1280, "height": 800})


def _focused_id(page: Page) -> str:
    return str(page.evaluate("document.activeElement && document.activeElement.id"))


def test_an_agent_works_an_issue_in_the_browser(
    browser_page: Page, workspace: WorkspaceFixture, shoot: Shoot
) -> None:
    api = workspace.client()
    api.ok(
        'mutation { createAccount(input: {name: "Reynholm Industries", '
        'domain: "reynholm.example"}) { error { code } } }'
    )
    issue = make_issue(
        api,
        subject="The printer is on fire again",
        body="Hello,\n\nthe printer on the third floor is on fire. Again.\n\nMoss",
        requesterEmail="moss@reynholm.example",
        requesterName="Maurice Moss",
    )
    billing = new_label(api, "Hardware", color="#d97706")
    new_label(api, "Urgent", color="#dc2626")
    add_labels(api, issue["id"], billing["id"])
    reply(api, issue["id"], "Have you tried turning it off and on again?")
    add_note(api, issue["id"], "Third time this month: ask facilities about the wiring.")
    agent = make_agent(workspace, "Roy Trenneman")
    number = issue["ticketNumber"]
    page = browser_page

    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text))
    log_in(page, agent.email, AGENT_PASSWORD, then="/inbox/")
    page.goto(f"/inbox/issues/{number}")
    page.get_by_role("heading", name=re.compile("The printer is on fire again")).wait_for()
    assert page.locator(".msg-note").get_by_text("Internal note").is_visible()
    assert page.get_by_text("Reynholm Industries").is_visible()
    shoot(page, "issue")
    assert _fits_a_phone(page) == []

    # r: the composer for a reply; a status change goes with it.
    page.locator("body").press("r")
    assert _focused_id(page) == "message"
    page.keyboard.type("It is fixed: we replaced the fuse.")
    page.get_by_label("Then mark as").select_option("pending")
    with page.expect_navigation():
        page.get_by_role("button", name="Send reply").click()
    page.get_by_text("Reply sent.").wait_for()

    # n: a note, never inside a text field: typing n in the merge box stays there.
    page.get_by_label("Merge into ticket number").fill("n")
    assert _focused_id(page) == "merge-target"
    page.get_by_label("Merge into ticket number").fill("")
    page.locator("body").click()
    page.keyboard.press("n")
    assert _focused_id(page) == "message"
    page.keyboard.type("Facilities say the wiring is fine.")
    with page.expect_navigation():
        page.get_by_role("button", name="Add note").click()
    page.get_by_text("Note added.").wait_for()

    found = thread_of(api, issue["id"])
    assert found["status"] == "pending"
    assert [(m["visibility"], m["author"]["__typename"]) for m in found["thread"][-2:]] == [
        ("public", "Member"),
        ("internal", "Member"),
    ]

    # Status, assignee (a: assign to me) and labels: a page load without htmx, the
    # controls alone swapped with it; either way the change is confirmed on the page.
    page.get_by_label("Status").select_option("open")
    page.get_by_text("Status changed.").wait_for()
    assert page.get_by_text("Note added.").count() == 0  # one notice: the latest
    # The composer's choices start from the status now, not the one the page opened with.
    then = page.get_by_label("Then mark as").locator("option")
    assert then.first.inner_text() == "Open (no change)"
    assert "Open" not in then.all_inner_texts()[1:]
    page.locator("body").click()
    page.keyboard.press("a")
    page.get_by_text("Assignee changed.").wait_for()
    assert page.get_by_label("Assignee").input_value() == agent.id
    page.get_by_label("Labels").select_option(label=["Hardware", "Urgent"])
    page.get_by_role("button", name="Save labels").click()
    page.get_by_text("Labels changed.").wait_for()
    found = thread_of(api, issue["id"])
    assert found["status"] == "open"
    assert found["assignee"] == {"__typename": "Member", "id": agent.id}
    assert sorted(label["name"] for label in found["labels"]) == ["Hardware", "Urgent"]

    # A file uploads as soon as it is chosen, and goes with the next reply.
    page.get_by_label("Attach files").set_input_files(
        files=[{"name": "fuse-receipt.txt", "mimeType": "text/plain", "buffer": b"1 fuse, 13 A"}]
    )
    page.get_by_text("fuse-receipt.txt is attached.").wait_for()
    page.get_by_label("Message").fill("The receipt for the fuse is attached.")
    with page.expect_navigation():
        page.get_by_role("button", name="Send reply").click()
    page.get_by_role("link", name="fuse-receipt.txt").wait_for()
    last = thread_of(api, issue["id"])["thread"][-1]
    assert [a["fileName"] for a in last["attachments"]] == ["fuse-receipt.txt"]
    shoot(page, "issue-worked")

    # A reply from a page that has not shown the newest message is held: the page's live
    # stream cut (it would show the message within a second), another reply made.
    page.route("**/inbox/live*", lambda route: route.abort())
    page.reload()
    reply(api, issue["id"], "Jen here: I already told Moss to use the other printer.")
    page.get_by_label("Message").fill("Moss, please use the printer on the second floor.")
    page.get_by_role("button", name="Send reply").click()
    page.get_by_role("button", name="Send anyway").wait_for()
    assert page.get_by_label("Message").input_value() == (
        "Moss, please use the printer on the second floor."
    )
    assert page.locator(".msg-new").get_by_text("Jen here").is_visible()
    count = thread_of(api, issue["id"])["messageCount"]
    shoot(page, "issue-held")
    assert _fits_a_phone(page) == []
    page.get_by_role("link", name="Edit").click()
    assert _focused_id(page) == "message"
    assert thread_of(api, issue["id"])["messageCount"] == count  # nothing sent
    page.get_by_label("Message").fill("Moss, the second-floor printer it is, then.")
    with page.expect_navigation():
        page.get_by_role("button", name="Send reply").click()
    page.get_by_text("Reply sent.").wait_for()
    assert thread_of(api, issue["id"])["thread"][-1]["body"] == (
        "Moss, the second-floor printer it is, then."
    )
    # Nothing was refused on the way: an inline style or script htmx injected would be.
    assert [error for error in errors if "Content Security Policy" in error] == []
