"""Every page goes through here: session in, CSRF checked on POST, the member loaded and
checked (an admin for the settings), the handler run, the session cookie written back."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from starlette.datastructures import FormData
from starlette.exceptions import HTTPException
from starlette.formparsers import MultiPartException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.types import Message

from supportdesk.auth.login_throttle import LoginThrottle
from supportdesk.auth.server_key import CURSOR_KEY_PURPOSE, ServerKey
from supportdesk.config import Settings
from supportdesk.db import Database
from supportdesk.domain import audit
from supportdesk.domain.org_admins import Membership, session_membership
from supportdesk.domain.pagination import MAX_PAGE_SIZE, Cursors, PageRequest
from supportdesk.domain.pagination import Page as ListPage
from supportdesk.live import ActiveWatch, LiveEvents
from supportdesk.web import csrf
from supportdesk.web.render import SECURITY_HEADERS, Renderer
from supportdesk.web.session import Session, SessionCookies

MAX_FORM_BYTES = 64 * 1024
# Who may open a page: anyone (the login), any member logged in (the inbox), an admin.
PUBLIC, MEMBER, ADMIN = "public", "member", "admin"
T = TypeVar("T")
# A page of one of the workspace's lists: (db, workspace_id, page request).
Lister = Callable[[Database, str, PageRequest], Awaitable[ListPage[T]]]


@dataclass
class Web:
    """What the pages share."""

    settings: Settings
    db: Database
    sessions: SessionCookies
    throttle: LoginThrottle
    server_key: ServerKey
    # The process's live events, and the watch that ends a login's live streams.
    live: LiveEvents
    logins: ActiveWatch[Any]
    renderer: Renderer = field(default_factory=Renderer)


@dataclass
class Page:
    """One request to a page."""

    request: Request
    web: Web
    session: Session
    form: FormData = field(default_factory=FormData)
    membership: Membership | None = None

    @property
    def db(self) -> Database:
        return self.web.db

    @property
    def me(self) -> Membership:
        assert self.membership is not None, "a member's page without a member"
        return self.membership

    @property
    def workspace_id(self) -> str:
        return self.me.admin.workspace_id

    async def cursors(self) -> Cursors:
        """The cursors of this workspace's lists, as the API signs them."""
        return Cursors(await self.web.server_key.derived(CURSOR_KEY_PURPOSE), self.workspace_id)

    @property
    def base_url(self) -> str:
        """Where people reach the service: the deployment's setting, else this request's."""
        return self.web.settings.base_url or str(self.request.base_url).rstrip("/")

    @property
    def client_address(self) -> str | None:
        return self.request.client.host if self.request.client else None

    @property
    def actor(self) -> audit.Actor:
        admin = self.me.admin
        return audit.Actor("org_admin", admin.id, admin.email, self.client_address)

    def field(self, name: str) -> str:
        value = self.form.get(name)
        return value if isinstance(value, str) else ""

    def render(
        self,
        template: str,
        status: int = 200,
        headers: dict[str, str] | None = None,
        **values: Any,
    ) -> Response:
        context = {
            "request": self.request,
            "csrf_token": self.session.csrf,
            "me": self.membership,
            "can_switch": len(self.session.choices) > 1,
            "notice": self.session.take_notice(),
            "base_url": self.base_url,
            "section": "",
            **values,
        }
        return self.web.renderer.html(template, context, status, headers)

    def problem(self, status: int, title: str, message: str) -> Response:
        return self.render("problem.html", status, title=title, message=message)

    async def every(self, lister: Lister[T]) -> list[T]:
        """The whole of one of the workspace's lists (`lister(db, workspace_id,
        page_request)`), read a page at a time."""
        found: list[T] = []
        after = None
        while True:
            batch = await lister(self.db, self.workspace_id, PageRequest(MAX_PAGE_SIZE, after))
            found.extend(batch.items)
            if not batch.has_next:
                return found
            after = batch.items[-1].id  # type: ignore[attr-defined]


Handler = Callable[[Page], Awaitable[Response]]


@dataclass(frozen=True, slots=True)
class BodyLimits:
    """What a page's POST may send: `total` bytes, `files` files, `part` bytes per field."""

    total: int = MAX_FORM_BYTES
    files: int = 0
    part: int = MAX_FORM_BYTES


# Pages whose forms carry more than the settings' (a composer's message, an upload), by
# handler: the limits, from the settings (an upload's follow the largest attachment).
_LARGER_BODIES: dict[Handler, Callable[[Settings], BodyLimits]] = {}


def takes_body(limits: Callable[[Settings], BodyLimits]) -> Callable[[Handler], Handler]:
    """Mark a handler whose POST may be larger than a settings form; its CSRF token is
    checked all the same, before the handler runs."""

    def mark(handler: Handler) -> Handler:
        _LARGER_BODIES[handler] = limits
        return handler

    return mark


def redirect(path: str) -> Response:
    return RedirectResponse(path, status_code=303, headers=SECURITY_HEADERS)


class _BodyTooLarge(Exception):
    """More bytes came than the page takes (a chunked body declares no length)."""


def _counted(request: Request, limit: int) -> Request:
    """The request, its body read through a count that stops past `limit` bytes: a body
    without a Content-Length is refused as soon as it is too large, not once it is all
    in memory or spooled to disk."""
    received = 0

    async def receive() -> Message:
        nonlocal received
        message = await request.receive()
        received += len(message.get("body", b""))
        if received > limit:
            raise _BodyTooLarge
        return message

    return Request(request.scope, receive)


def _too_large(page: Page) -> Response:
    return page.problem(413, "Form too large", "The form sent more than this page accepts.")


async def _read_form(page: Page, limits: BodyLimits) -> Response | None:
    declared = page.request.headers.get("content-length", "")
    if declared.isascii() and declared.isdigit() and int(declared) > limits.total:
        return _too_large(page)
    try:
        page.form = await _counted(page.request, limits.total).form(
            max_files=limits.files, max_fields=100, max_part_size=limits.part
        )
    except _BodyTooLarge:
        return _too_large(page)
    except (MultiPartException, HTTPException):
        # Starlette turns a part over the limits into a 400 HTTPException.
        return page.problem(400, "Form not readable", "The form could not be read.")
    if not csrf.is_valid(page.session, page.form):
        return page.problem(
            403,
            "Form expired",
            "This form has expired or did not come from this page. "
            "Go back, reload the page and try again.",
        )
    return None


async def _admit(page: Page, access: str) -> Response | None:
    """None when the session is live (not logged out, not ended, not expired) and belongs to
    a member of its workspace (an admin where `access` asks one), else the answer. One
    lookup answers both."""
    session = page.session
    if not session.logged_in:
        return redirect("/workspace" if session.choices else "/login")
    assert session.id is not None
    assert session.workspace_id is not None and session.admin_id is not None
    page.membership = await session_membership(
        page.db, session.id, session.workspace_id, session.admin_id
    )
    if page.membership is None:
        page.session = Session()
        page.session.tell("Your login is no longer valid. Please log in again.")
        return redirect("/login")
    if access == ADMIN and not page.membership.admin.is_admin:
        return not_an_admin(page, page.membership)
    return None


def not_an_admin(page: Page, membership: Membership) -> Response:
    return page.render(
        "not_admin.html", 403, person=membership.admin.email, workspace=membership.workspace_name
    )


_NUL = "The address or form holds a NUL character, which no page takes."


def _holds_nul(page: Page) -> bool:
    """No text of ours may hold NUL (PostgreSQL's text cannot, so neither backend takes
    it): refused here, once for every page, as the API refuses it."""
    values = [value for _, value in page.request.query_params.multi_items()]
    values += [str(value) for value in page.request.path_params.values()]
    for _, value in page.form.multi_items():
        values.append(value if isinstance(value, str) else value.filename or "")
    return any("\x00" in value for value in values)


def endpoint(web: Web, handler: Handler, *, access: str = ADMIN) -> Callable[..., Any]:
    async def run(request: Request) -> Response:
        page = Page(request, web, await web.sessions.read(request))
        refused = None
        if request.method == "POST":
            larger = _LARGER_BODIES.get(handler)
            limits = larger(web.settings) if larger else BodyLimits()
            refused = await _read_form(page, limits)
        if refused is None and _holds_nul(page):
            refused = page.problem(400, "Not readable", _NUL)
        if refused is None and access != PUBLIC:
            refused = await _admit(page, access)
        response = refused or await handler(page)
        await web.sessions.write(request, response, page.session)
        return response

    return run
