"""Fixtures of the settings-page tests."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.conftest import WorkspaceFixture, make_workspace
from tests.servers import IN_CI, RunningServer
from tests.web.settings_client import random_address

if TYPE_CHECKING:
    from playwright.sync_api import Browser
    from playwright.sync_api import Page as BrowserPage

# Small limits, so throttling shows after a few (slow, Argon2id-checked) wrong passwords;
# in the order of the defaults: the pair's tightest, the e-mail's loosest.
STRICT_LIMITS = {
    "login_failures_per_address_and_email": 2,
    "login_failures_per_address": 4,
    "login_failures_per_email": 6,
}


@pytest.fixture(scope="module")
def strict_server(server: RunningServer) -> Iterator[RunningServer]:
    """A second server on the same database whose login throttle trips early."""
    running = RunningServer(server.backend, server.database_url, **STRICT_LIMITS).start()
    yield running
    running.stop()


@pytest.fixture
def strict_workspace(strict_server: RunningServer) -> WorkspaceFixture:
    return make_workspace(strict_server)


# --- A real browser ---------------------------------------------------------------------

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def _browser_missing() -> str | None:
    """Why the browser tests cannot run here, or None when they can."""
    if importlib.util.find_spec("playwright") is None:
        return "playwright is not installed (make install)"
    if not os.access(CHROMIUM, os.X_OK):
        return f"{CHROMIUM} is missing: run `make chromium` (Debian's chromium package)"
    return None


@pytest.fixture(scope="module")
def browser(server: RunningServer) -> Iterator[Browser]:
    """Debian's Chromium, driven by Playwright. Required in CI; skipped elsewhere without it.

    Playwright's sync API keeps an event loop running in this thread while it is open, so
    the browser lives inside one server's lifetime (set up after it, closed before the next
    backend's server needs `asyncio.run`)."""
    missing = _browser_missing()
    if missing:
        if IN_CI:
            pytest.fail(f"browser tests must run in CI: {missing}")
        pytest.skip(missing)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def browser_page(browser: Browser, server: RunningServer) -> Iterator[BrowserPage]:
    """A fresh browser profile (no cookies) at 1280×800 on the server under test."""
    context = browser.new_context(
        base_url=server.base_url,
        viewport={"width": 1280, "height": 800},
        extra_http_headers={"X-Forwarded-For": random_address()},
        # A page without focus may be refused the clipboard: the Copy buttons' tests then
        # saw the fallback's message about one run in ten.
        permissions=["clipboard-read", "clipboard-write"],
    )
    context.set_default_timeout(10_000)
    page = context.new_page()
    yield page
    context.close()
