"""An invitation link's page: the member chooses their password, then is logged in.

Open to anyone with the link (the link is the credential). A link that no longer works
says why: unknown or replaced (404), used or expired (410); never more than that.
"""

from __future__ import annotations

from datetime import timedelta

from starlette.responses import Response

from supportdesk.domain import members
from supportdesk.domain.errors import DomainError
from supportdesk.domain.org_admins import end_session, start_session
from supportdesk.web.endpoint import Page, redirect
from supportdesk.web.pages.login import HOME
from supportdesk.web.session import Session

_UNUSABLE = {
    "unknown": (
        404,
        "This link does not work",
        "The invitation link is not valid: it may be mistyped, or a newer link replaced it. "
        "Ask an admin of your workspace for a new one.",
    ),
    "used": (
        410,
        "This link was already used",
        "An invitation link sets a password once. Log in with the password you chose, or ask "
        "an admin of your workspace for a new link.",
    ),
    "expired": (
        410,
        "This link has expired",
        "Invitation links work for 7 days. Ask an admin of your workspace for a new one.",
    ),
}
_PASSWORD_ERRORS = {
    "REQUIRED": "Choose a password.",
    "INVALID": "Use at least 8 characters.",
    "TOO_LONG": "Keep the password to 1,024 characters or fewer.",
}


def _token(page: Page) -> str:
    return str(page.request.path_params["token"])[:200]


def _unusable(page: Page, error: members.InvitationUnusable) -> Response:
    status, title, message = _UNUSABLE[error.reason]
    return page.render("invitation_unusable.html", status, title=title, message=message)


def _form(
    page: Page, invited: members.Invited, error: str | None = None, status: int = 200
) -> Response:
    return page.render("invitation.html", status, invited=invited, error=error)


async def invitation_form(page: Page) -> Response:
    try:
        invited = await members.open_invitation(page.db, _token(page))
    except members.InvitationUnusable as error:
        return _unusable(page, error)
    return _form(page, invited)


async def choose_password(page: Page) -> Response:
    token = _token(page)
    try:
        invited = await members.open_invitation(page.db, token)
    except members.InvitationUnusable as error:
        return _unusable(page, error)
    password = page.field("password")
    if password != page.field("confirm"):
        return _form(page, invited, "The two passwords are not the same.", 400)
    try:
        seat = await members.accept_invitation(page.db, token, password, page.client_address)
    except members.InvitationUnusable as error:
        return _unusable(page, error)  # used or replaced in the meantime
    except DomainError as error:
        code = str(error.fields[0].code) if error.fields else ""
        return _form(page, invited, _PASSWORD_ERRORS.get(code, error.message), 400)
    # Logged in as the member, in this workspace only; a login this browser had ends.
    if page.session.id is not None:
        await end_session(page.db, page.session.id, page.session.workspace_ids)
    lifetime = timedelta(seconds=page.web.sessions.lifetime)
    session_id = await start_session(page.db, [seat], lifetime)
    page.session = Session.started(session_id, [(seat.workspace_id, seat.id)])
    page.session.tell("Your password is set. Welcome!")
    return redirect(HOME)
