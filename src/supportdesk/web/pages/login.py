"""Logging in and out, and choosing a workspace when one e-mail administers several."""

from __future__ import annotations

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
from supportdesk.web.endpoint import Page, redirect
from supportdesk.web.session import Session

HOME = "/settings/api"


async def home(page: Page) -> Response:
    return redirect(HOME)


async def login_form(page: Page) -> Response:
    if page.session.logged_in:
        return redirect(HOME)
    return page.render("login.html", email="", error=None)


def _refused(page: Page, email: str, status: int, error: str, **headers: str) -> Response:
    return page.render("login.html", status, headers, email=email, error=error)


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
    seats = await verify_login(page.db, email, password)
    admin_seats = [seat.admin for seat in seats if seat.admin.is_admin]
    if not admin_seats:
        # A person who is no admin is answered, and counted, exactly as a wrong password:
        # any other answer would tell a guesser that the password is right.
        await _count_failure(page, email, address)
        return _refused(
            page,
            email,
            401,
            "That e-mail and password do not match an org admin.",
            **{"WWW-Authenticate": 'Form realm="supportdesk settings"'},
        )
    await throttle.succeeded(email, address)
    await _end(page)  # a login over a login: the one before does not linger
    lifetime = timedelta(seconds=page.web.sessions.lifetime)
    session_id = await start_session(page.db, admin_seats, lifetime)
    page.session = Session.started(session_id, [(s.workspace_id, s.id) for s in admin_seats])
    return redirect(HOME if page.session.logged_in else "/settings/workspace")


async def _count_failure(page: Page, email: str, address: str | None) -> None:
    """Count a wrong password; when it locks the e-mail itself, tell its workspaces."""
    throttle = page.web.throttle
    if await throttle.failed(email, address, now()):
        limits = throttle.limits
        window = int(limits.window.total_seconds())
        await record_login_lock(page.db, email, address, limits.per_email, window)


async def _choices(page: Page) -> list[Membership]:
    """The admin seats the login still covers (none once it has ended)."""
    session = page.session
    if session.id is None or not session.choices:
        return []
    seats = await session_memberships(page.db, session.id, session.workspace_ids)
    return [seat for seat in seats if seat.admin.is_admin]


def _login_again(page: Page) -> Response:
    page.session = Session()
    return redirect("/settings/login")


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
            page.session.tell(f"You are managing {seat.workspace_name}.")
            return redirect(HOME)
    return page.problem(404, "Workspace not found", "You are not an org admin of that workspace.")


async def _end(page: Page) -> None:
    """End the login on the server: a copy of its cookie, taken before, opens nothing after."""
    if page.session.id is not None:
        await end_session(page.db, page.session.id, page.session.workspace_ids)


async def logout(page: Page) -> Response:
    await _end(page)
    page.session = Session()
    page.session.tell("You have logged out.")
    return redirect("/settings/login")
