"""Logging in and out (agents and admins alike), and choosing a workspace when one e-mail
belongs to several."""

from __future__ import annotations

import logging
import math
from datetime import timedelta

from starlette.responses import Response

from supportdesk.domain.clock import now
from supportdesk.domain.org_admins import (
    Membership,
    end_session,
    record_login_lock,
    session_memberships,
    start_session,
    verify_login,
)
from supportdesk.domain.validation import is_email
from supportdesk.web.endpoint import Page, redirect
from supportdesk.web.session import Session

logger = logging.getLogger("supportdesk.auth")

HOME = "/inbox/"
SETTINGS_HOME = "/settings/api"


async def home(page: Page) -> Response:
    return redirect(HOME)


async def settings_home(page: Page) -> Response:
    return redirect(SETTINGS_HOME)


def _next(page: Page, wanted: str) -> str:
    """Where to go after logging in: a page of ours asked for (`?next=`), else the inbox.
    Only a path on this site: never another origin (`//host`, `/\\host`)."""
    if wanted.startswith("/") and not wanted.startswith(("//", "/\\")) and len(wanted) < 500:
        return wanted
    return HOME


async def login_form(page: Page) -> Response:
    wanted = _next(page, page.request.query_params.get("next", ""))
    if page.session.logged_in:
        return redirect(wanted)
    return page.render("login.html", email="", error=None, next=wanted)


def _refused(page: Page, email: str, status: int, error: str, **headers: str) -> Response:
    wanted = _next(page, page.field("next"))
    return page.render("login.html", status, headers, email=email, error=error, next=wanted)


async def login(page: Page) -> Response:
    email = page.field("email").strip()[:254]
    password = page.field("password")
    throttle, address = page.web.throttle, page.client_address
    if not email or not password:
        return _refused(page, email, 400, "Enter your e-mail and password.")
    wait = await throttle.retry_after(email, address, now())
    if wait is not None:
        minutes = math.ceil(wait / 60)
        message = (
            "Too many failed logins. For your security, logging in is paused: "
            f"try again in {minutes} minute{'s' * (minutes != 1)}."
        )
        return _refused(page, email, 429, message, **{"Retry-After": str(wait)})
    seats = [seat.admin for seat in await verify_login(page.db, email, password)]
    if not seats:
        await _count_failure(page, email, address)
        return _refused(
            page,
            email,
            401,
            "That email and password do not match a member.",
            **{"WWW-Authenticate": 'Form realm="supportdesk"'},
        )
    await throttle.succeeded(email, address)
    await _end(page)  # a login over a login: the one before does not linger
    lifetime = timedelta(seconds=page.web.sessions.lifetime)
    session_id = await start_session(page.db, seats, lifetime)
    page.session = Session.started(session_id, [(s.workspace_id, s.id) for s in seats])
    return redirect(_next(page, page.field("next")) if page.session.logged_in else "/workspace")


async def _count_failure(page: Page, email: str, address: str | None) -> None:
    """Count a wrong password; when it locks the e-mail itself, tell its workspaces. Each
    is logged, so that guessing at the login can be traced to its addresses."""
    # Only what looks like an address: a password typed in the wrong field stays out.
    tried = email if is_email(email) else "(not an e-mail address)"
    logger.info("login refused", extra={"fields": {"email": tried, "client": address}})
    throttle = page.web.throttle
    if await throttle.failed(email, address, now()):
        limits = throttle.limits
        window = int(limits.window.total_seconds())
        await record_login_lock(page.db, email, address, limits.per_email, window)


async def _choices(page: Page) -> list[Membership]:
    """The seats the login still covers (none once it has ended)."""
    session = page.session
    if session.id is None or not session.choices:
        return []
    return await session_memberships(page.db, session.id, session.workspace_ids)


def _login_again(page: Page) -> Response:
    page.session = Session()
    return redirect("/login")


async def choose_form(page: Page) -> Response:
    seats = await _choices(page)
    if not seats:
        return _login_again(page)
    return page.render(
        "choose_workspace.html",
        seats=seats,
        current=page.session.workspace_id,
    )


async def choose(page: Page) -> Response:
    wanted = page.field("workspace_id")
    seats = await _choices(page)
    if not seats:
        return _login_again(page)
    for seat in seats:
        if seat.admin.workspace_id == wanted:
            page.session.choose(wanted, seat.admin.id)
            page.session.tell(f"You are working in {seat.workspace_name}.")
            return redirect(HOME)
    return page.problem(404, "Workspace not found", "You are not a member of that workspace.")


async def _end(page: Page) -> None:
    """End the login on the server: a copy of its cookie, taken before, opens nothing after."""
    if page.session.id is not None:
        await end_session(page.db, page.session.id, page.session.workspace_ids)


async def logout(page: Page) -> Response:
    await _end(page)
    page.session = Session()
    page.session.tell("You have logged out.")
    return redirect("/login")
