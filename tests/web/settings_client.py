"""An HTTP client for the settings page: a browser without the browser (cookies, forms)."""

from __future__ import annotations

import html
import re
import secrets
from typing import Any
from urllib.parse import urlencode

import httpx

_HIDDEN = re.compile(r'<input type="hidden" name="(?P<name>[a-z_]+)" value="(?P<value>[^"]*)"')
_SECRET = re.compile(r'id="secret"[^>]*>(svc_mk_[0-9A-Za-z]+)<')
_LINK = re.compile(r'id="secret"[^>]*>(https?://[^<]+/invitations/[^<]+)<')


def hidden_fields(page: str) -> dict[str, str]:
    return {m["name"]: html.unescape(m["value"]) for m in _HIDDEN.finditer(page)}


def secret_on(page: str) -> str | None:
    found = _SECRET.search(page)
    return found.group(1) if found else None


def link_on(page: str) -> str | None:
    """The invitation link a page shows once (Settings → Members)."""
    found = _LINK.search(page)
    return html.unescape(found.group(1)) if found else None


def random_address() -> str:
    """A client address of its own (the server trusts X-Forwarded-For from 127.0.0.1), so
    one test's failed logins never throttle another's."""
    return "10." + ".".join(str(secrets.randbelow(250) + 1) for _ in range(3))


class SettingsClient:
    def __init__(self, base_url: str, *, address: str | None = None, https: bool = False):
        self.address = address or random_address()
        headers = {"X-Forwarded-For": self.address}
        if https:
            headers["X-Forwarded-Proto"] = "https"
        self.http = httpx.Client(
            base_url=base_url, headers=headers, follow_redirects=False, timeout=30
        )

    def get(self, path: str, **kwargs: Any) -> httpx.Response:
        return self.http.get(path, **kwargs)

    def post(self, path: str, data: dict[str, str] | list[tuple[str, str]]) -> httpx.Response:
        """A form POST, urlencoded as a browser sends it (repeated names included)."""
        pairs = list(data.items()) if isinstance(data, dict) else data
        return self.http.post(
            path,
            content=urlencode(pairs),
            headers={"Content-Type": "application/x-www-form-urlencoded"},
        )

    def submit(
        self, form_page: str, action: str, fields: dict[str, Any] | None = None
    ) -> httpx.Response:
        """POST a form the way a browser does: the page's hidden fields plus `fields`."""
        page = self.get(form_page)
        assert page.status_code == 200, (form_page, page.status_code)
        data: list[tuple[str, str]] = list(hidden_fields(page.text).items())
        for name, value in (fields or {}).items():
            values = value if isinstance(value, list) else [value]
            data.extend((name, str(item)) for item in values)
        return self.post(action, data)

    def login(self, email: str, password: str) -> httpx.Response:
        return self.submit("/login", "/login", {"email": email, "password": password})

    def logged_in(self, email: str, password: str) -> SettingsClient:
        answer = self.login(email, password)
        assert answer.status_code == 303 and answer.headers["location"] == "/inbox/", (
            answer.status_code,
            answer.text[:500],
        )
        return self

    def create_key(self, **fields: Any) -> httpx.Response:
        form = {"name": "test key", "access": "full_access", "expires": "never", **fields}
        return self.submit("/settings/api/keys/new", "/settings/api/keys", form)

    def csrf_token(self) -> str:
        return hidden_fields(self.get("/settings/api").text)["csrf_token"]
