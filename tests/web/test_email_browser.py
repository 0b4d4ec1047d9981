"""Settings → Email in a real browser (Debian's Chromium through Playwright): a mailbox from
creation to deletion, its inbound token shown once and then used to post mail, which the
page then shows; the IMAP password typed once and never shown back.

Each step is photographed at 1280×800 and 390×844 into tests/artifacts/email-*.png.
"""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING

import pytest

from tests.conftest import WorkspaceFixture
from tests.email.doors import post_mail
from tests.graphql.mailboxes.helpers import unique_address
from tests.servers import RunningServer
from tests.web.test_browser import Shoot, log_in, take_screenshots

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.browser

PASSWORD = "app-password-" + secrets.token_hex(6)


@pytest.fixture
def shoot(server: RunningServer) -> Shoot:
    """Photographs pages on one backend: the pages are the same on both."""
    return take_screenshots if server.backend == "sqlite" else lambda page, name: None


def mail(address: str) -> bytes:
    return (
        f"From: Alice <alice@customer.test>\r\nTo: {address}\r\nSubject: Printer on fire\r\n"
        f"Message-ID: <{secrets.token_hex(8)}@customer.test>\r\n\r\nIt is on fire.\r\n"
    ).encode()


def test_a_mailbox_from_creation_to_deletion(
    browser_page: Page, workspace: WorkspaceFixture, shoot: Shoot
) -> None:
    page = browser_page
    address = unique_address()
    log_in(page, workspace.admin_email)
    page.wait_for_url("**/settings/api")
    page.get_by_role("navigation", name="Settings").get_by_role("link", name="Email").click()
    page.get_by_role("heading", name="Email", exact=True).wait_for()
    assert page.get_by_text("No mailboxes yet").is_visible()
    shoot(page, "email-empty")

    # Bad input is explained on the form; the password typed is not shown back.
    page.get_by_role("link", name="Add mailbox").first.click()
    page.get_by_label("Address").fill("support+billing@acme.example")
    page.get_by_label("IMAP URL").fill("imaps://support%40acme.example@imap.acme.example/INBOX")
    page.get_by_label("IMAP password").fill(PASSWORD)
    page.get_by_role("button", name="Add mailbox").click()
    page.get_by_text("has no + part").wait_for()
    assert page.get_by_label("IMAP password").input_value() == ""
    assert PASSWORD not in page.content()
    shoot(page, "email-new-invalid")

    page.get_by_label("Address").fill(address)
    page.get_by_label("Name").fill("Acme Support")
    page.get_by_role("checkbox", name="Acknowledge new issues").check()
    page.get_by_label("IMAP password").fill(PASSWORD)
    shoot(page, "email-new")
    page.get_by_role("button", name="Add mailbox").click()

    # Created: the token, once, with how to use it.
    page.get_by_text("It is shown only once").wait_for()
    token = page.locator("#secret").inner_text()
    assert token.startswith("mbt_") and token not in page.url
    assert page.get_by_text("/v1/inbound-email").first.is_visible()
    page.get_by_role("button", name="Copy").click()
    page.get_by_text("Copied to the clipboard.").wait_for()
    shoot(page, "email-token")
    page.reload()  # the browser sends the form again: its one-time token is spent
    assert page.get_by_role("heading", name="This form was already sent").is_visible()
    assert token not in page.content()

    # The token works; the page shows what came in.
    answer = post_mail(workspace.server, token, mail(address))
    assert answer.status_code == 202, answer.text
    page.goto("/settings/email")
    row = page.locator("tr", has_text=address)
    assert row.count() == 1
    assert row.get_by_text("by HTTP POST · 1 in all").is_visible()
    assert row.get_by_text("Nothing taken yet").is_visible()
    assert token not in page.content() and PASSWORD not in page.content()
    shoot(page, "email-list")
    row.get_by_role("link", name="Manage").click()
    page.get_by_role("heading", name=address).wait_for()
    assert page.get_by_text(
        "imaps://support%40acme.example:***@imap.acme.example/INBOX"
    ).is_visible()
    assert page.locator('tr[data-door="http"]').get_by_text("1 message").is_visible()
    shoot(page, "email-mailbox")

    # Editing: the password field is empty and stays the mailbox's when left so.
    page.get_by_role("link", name="Edit mailbox").click()
    assert page.get_by_label("IMAP password").input_value() == ""
    assert page.get_by_text("Leave it empty to keep the current one.").is_visible()
    page.get_by_label("Name").fill("Acme Help")
    shoot(page, "email-edit")
    page.get_by_role("button", name="Save mailbox").click()
    page.get_by_text("The mailbox is saved.").wait_for()
    assert page.get_by_text("Acme Help").first.is_visible()

    # Rotating: a new token, once; the old one stops.
    page.get_by_role("button", name="Rotate token").click()
    page.get_by_text("It is shown only once").wait_for()
    new_token = page.locator("#secret").inner_text()
    assert new_token.startswith("mbt_") and new_token != token
    shoot(page, "email-rotated")
    page.get_by_role("link", name="I have stored the token").click()
    assert new_token not in page.content()
    assert post_mail(workspace.server, token, mail(address)).status_code == 401
    assert post_mail(workspace.server, new_token, mail(address)).status_code == 202

    # Deleting, after confirming.
    page.get_by_role("link", name="Delete mailbox").click()
    page.get_by_role("heading", name="Delete this mailbox?").wait_for()
    shoot(page, "email-delete")
    page.get_by_role("button", name="Delete mailbox").click()
    page.wait_for_url("**/settings/email")
    assert page.get_by_text("is deleted").is_visible()
    assert page.get_by_text("No mailboxes yet").is_visible()
    assert post_mail(workspace.server, new_token, mail(address)).status_code == 401
