"""Settings → Webhooks in a real browser (Debian's Chromium through Playwright), against a
server whose dispatcher delivers to a receiver on 127.0.0.1: what the page shows is what
the receiver got, signed with the secret the page showed once.

Each step is photographed at 1280×800 and 390×844 into tests/artifacts/webhooks-*.png.
"""

from __future__ import annotations

import tempfile
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from standardwebhooks import Webhook

from tests.conftest import TEST_SECRET_KEY, WorkspaceFixture
from tests.graphql.issues.helpers import new_issue
from tests.servers import RunningServer, create_postgres_database, drop_postgres_database
from tests.web.test_browser import Shoot, log_in, take_screenshots

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page

pytestmark = pytest.mark.browser


class Receiver:
    """A webhook receiver on 127.0.0.1 that answers 200 and keeps what it was sent."""

    def __init__(self) -> None:
        self.received: list[tuple[dict[str, str], bytes]] = []
        received = self.received

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", "0")))
                received.append(({k.lower(): v for k, v in self.headers.items()}, body))
                self.send_response(200)
                self.send_header("content-length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args: object) -> None:
                pass  # quiet: the test reads `received`

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/hooks/supportdesk"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def of_event(self, event_id: str) -> list[tuple[dict[str, str], bytes]]:
        return [
            (headers, body) for headers, body in self.received if headers["webhook-id"] == event_id
        ]

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    running = Receiver()
    yield running
    running.close()


@pytest.fixture(scope="module")
def server(server: RunningServer) -> Iterator[RunningServer]:
    """This module's pages and browser run on a server that delivers webhooks and allows
    loopback URLs, on a database of its own: a dispatcher takes the due deliveries of every
    workspace, so it must not meet the shared servers' (which never dispatch)."""
    with tempfile.TemporaryDirectory(prefix="supportdesk-webhooks-browser-") as folder:
        if server.backend == "sqlite":
            url = f"sqlite+aiosqlite:///{Path(folder) / 'webhooks.db'}"
        else:
            url = create_postgres_database()
        running = RunningServer(
            server.backend,
            url,
            secret_key=TEST_SECRET_KEY,
            failed_auth_per_minute=1_000_000,
            webhook_dispatch=True,
            webhook_allow_private=True,
        ).start()
        try:
            yield running
        finally:
            running.stop()
            if server.backend != "sqlite":
                drop_postgres_database(url)


@pytest.fixture
def shoot(server: RunningServer) -> Shoot:
    """Photographs pages on one backend: the pages are the same on both."""
    return take_screenshots if server.backend == "sqlite" else lambda page, name: None


def delivery_row(page: Page, text: str, nth: int = 0) -> Locator:
    return page.locator("table.deliveries tbody tr", has_text=text).nth(nth)


def wait_until_delivered(page: Page, text: str, count: int = 1) -> None:
    """Reload the endpoint's page until `count` deliveries matching `text` succeeded."""
    deadline = time.monotonic() + 20
    while True:
        rows = page.locator("table.deliveries tbody tr.row-succeeded", has_text=text)
        if rows.count() >= count:
            return
        assert time.monotonic() < deadline, page.locator("table.deliveries").inner_text()
        time.sleep(0.3)
        page.reload()


def test_an_endpoint_from_creation_to_deletion(
    browser_page: Page, workspace: WorkspaceFixture, receiver: Receiver, shoot: Shoot
) -> None:
    page = browser_page
    log_in(page, workspace.admin_email)
    page.wait_for_url("**/settings/api")
    page.get_by_role("navigation", name="Settings").get_by_role("link", name="Webhooks").click()
    page.get_by_role("heading", name="Webhooks").wait_for()
    assert page.get_by_text("No endpoints yet").is_visible()
    shoot(page, "webhooks-empty")

    # An unsafe address is explained on the form, whatever the server allows.
    page.get_by_role("link", name="Add endpoint").first.click()
    assert not page.locator(".event-list").is_visible()  # only Selected events shows the list
    page.get_by_label("Endpoint URL").fill("http://169.254.169.254/latest/meta-data/")
    page.get_by_role("button", name="Add endpoint").click()
    page.get_by_text("a link-local address, which is never allowed").wait_for()
    shoot(page, "webhooks-new-unsafe")

    page.get_by_label("Endpoint URL").fill(receiver.url)
    page.get_by_label("Description").fill("Support inbox bridge")
    page.get_by_role("radio", name="Selected events").check()
    assert page.locator(".event-list").is_visible()
    page.locator('input[name="event_types"][value="issue.created"]').check()
    shoot(page, "webhooks-new")
    page.get_by_role("button", name="Add endpoint").click()

    # Created: the secret, once.
    page.get_by_text("It is shown only once").wait_for()
    secret = page.locator("#secret").inner_text()
    assert secret.startswith("whsec_") and secret not in page.url
    page.get_by_role("button", name="Copy").click()
    page.get_by_text("Copied to the clipboard.").wait_for()
    shoot(page, "webhooks-created")
    page.reload()  # the browser sends the form again: its one-time token is spent
    assert page.get_by_role("heading", name="This form was already sent").is_visible()
    assert secret not in page.content()
    shoot(page, "webhooks-resubmitted")

    page.goto("/settings/webhooks")
    row = page.locator("tr", has_text=receiver.url)
    assert row.count() == 1  # the reload made no second endpoint
    assert row.get_by_text(secret[:12]).is_visible()
    assert row.get_by_text("issue.created").is_visible()
    assert row.get_by_text("Active").is_visible()
    assert secret not in page.content()
    shoot(page, "webhooks-list")
    row.get_by_role("link", name="Manage").click()
    page.get_by_text("Nothing has been sent to this endpoint yet").wait_for()

    # A test event: delivered, signed with the secret the page showed.
    page.get_by_role("button", name="Send test event").click()
    page.get_by_text("A test event is on its way").wait_for()
    wait_until_delivered(page, "webhook.test")
    test_row = delivery_row(page, "webhook.test")
    assert test_row.get_by_text("200").is_visible()
    assert test_row.get_by_role("button", name="Send a new test event").is_visible()
    [(headers, body)] = receiver.received
    assert Webhook(secret).verify(body, headers)["type"] == "webhook.test"
    shoot(page, "webhooks-test-delivered")

    # An event of the log, then its redelivery with the same event id.
    new_issue(workspace.client(), subject="Printer on fire")
    wait_until_delivered(page, "issue.created")
    event_id = delivery_row(page, "issue.created").locator("code.prefix").inner_text()
    delivery_row(page, "issue.created").get_by_role("button", name="Redeliver").click()
    page.get_by_text("is on its way again").wait_for()
    wait_until_delivered(page, event_id, count=2)
    assert [Webhook(secret).verify(b, h)["id"] for h, b in receiver.of_event(event_id)] == [
        event_id,
        event_id,
    ]
    shoot(page, "webhooks-redelivered")

    # Rotating: the new secret once; for 7 days both sign.
    page.get_by_label("Keep the previous secret valid for").select_option(label="7 days")
    page.get_by_role("button", name="Rotate secret").click()
    page.get_by_text("It is shown only once").wait_for()
    new_secret = page.locator("#secret").inner_text()
    assert new_secret.startswith("whsec_") and new_secret != secret
    assert page.get_by_text("For the next 7 days").is_visible()
    shoot(page, "webhooks-rotated")
    page.get_by_role("link", name="I have stored the secret").click()
    assert new_secret not in page.content()
    assert page.get_by_text(new_secret[:12]).is_visible()
    page.get_by_role("button", name="Send test event").click()
    wait_until_delivered(page, "webhook.test", count=2)
    headers, body = receiver.received[-1]
    assert len(headers["webhook-signature"].split()) == 2
    assert Webhook(new_secret).verify(body, headers)["type"] == "webhook.test"
    assert Webhook(secret).verify(body, headers)["type"] == "webhook.test"

    # Disabling and enabling.
    page.get_by_role("button", name="Disable endpoint").click()
    page.get_by_text("The endpoint is disabled").wait_for()
    assert page.get_by_text("Disabled by an org admin").is_visible()
    shoot(page, "webhooks-disabled")
    page.get_by_role("button", name="Enable endpoint").click()
    page.get_by_text("The endpoint is enabled").wait_for()
    assert page.locator(".endpoint-card").get_by_text("Active").is_visible()

    # Deleting, after confirming.
    page.get_by_role("link", name="Delete endpoint").click()
    page.get_by_role("heading", name="Delete this endpoint?").wait_for()
    shoot(page, "webhooks-delete")
    page.get_by_role("button", name="Delete endpoint").click()
    page.wait_for_url("**/settings/webhooks")
    assert page.get_by_text("is deleted").is_visible()
    assert page.get_by_text("No endpoints yet").is_visible()
    shoot(page, "webhooks-deleted")
