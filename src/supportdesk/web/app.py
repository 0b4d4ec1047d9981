"""The pages people use, logged in with a session: /login, the inbox under /inbox and the
settings under /settings. supportdesk.app lists these routes beside the API's."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from datetime import timedelta

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from supportdesk.auth.login_throttle import LoginThrottle, ThrottleLimits
from supportdesk.auth.server_key import ServerKey
from supportdesk.config import Settings
from supportdesk.db import Database, DatabaseUnavailable
from supportdesk.http.errors import UNAVAILABLE_RETRY_AFTER, log_unavailable
from supportdesk.live import LiveEvents
from supportdesk.rest.errors import not_found as api_not_found
from supportdesk.web.endpoint import ADMIN, MEMBER, PUBLIC, Handler, Web, endpoint, redirect
from supportdesk.web.live_reader import login_watch
from supportdesk.web.pages import (
    api_keys,
    audit,
    inbox,
    invitations,
    issue_files,
    issue_live,
    issue_page,
    live,
    login,
    machine_users,
    mailboxes,
    members,
    presence,
    webhook_endpoint,
    webhooks,
)
from supportdesk.web.render import Renderer
from supportdesk.web.session import SessionCookies

PROBLEMS = {
    404: ("Page not found", "There is nothing here. Check the address."),
    405: ("Not allowed", "This address does not take that kind of request."),
    500: ("Something went wrong", "The page could not be shown. Please try again."),
    503: (
        "Unavailable for a moment",
        "The service cannot reach its database. Please try again shortly.",
    ),
}


def _web(settings: Settings, db: Database, server_key: ServerKey, events: LiveEvents) -> Web:
    limits = ThrottleLimits(
        per_address_and_email=settings.login_failures_per_address_and_email,
        per_email=settings.login_failures_per_email,
        per_address=settings.login_failures_per_address,
        window=timedelta(seconds=settings.login_throttle_seconds),
    )
    return Web(
        settings,
        db,
        SessionCookies(server_key, int(settings.session_hours * 3600)),
        LoginThrottle(db, limits),
        server_key,
        events,
        events.add_watch(login_watch(db)),
    )


# A page's route: (path, handler, methods, access=...).
PageRoute = Callable[..., Route]


async def _to_login(request: Request) -> Response:
    return redirect("/login")


def _html_problems(renderer: Renderer) -> Callable[[Request, Exception], Awaitable[Response]]:
    async def http_problem(request: Request, error: Exception) -> Response:
        status = error.status_code if isinstance(error, HTTPException) else 500
        if isinstance(error, DatabaseUnavailable):
            status = 503
            log_unavailable(error, request.state.request_id, request.url.path)
        title, message = PROBLEMS.get(status, PROBLEMS[500])
        values = {
            "title": title,
            "message": message,
            "me": None,
            "csrf_token": "",
            "request": request,
        }
        page = renderer.html("problem.html", values, status)
        if status == 503:
            page.headers["Retry-After"] = UNAVAILABLE_RETRY_AFTER
        return page

    return http_problem


def not_found_anywhere() -> Callable[[Request, Exception], Awaitable[Response]]:
    """An address nothing serves: the problem page for a browser, the API's JSON error
    for anything else (a client that mistyped /graphql)."""
    page = _html_problems(Renderer())

    async def not_found(request: Request, error: Exception) -> Response:
        if "text/html" in request.headers.get("accept", ""):
            return await page(request, error)
        api = "The API answers at POST /graphql and under /v1 (see /v1/openapi.json)."
        return api_not_found(f"No such address. {api}").response()

    return not_found


def _pages(web: Web, routes: list[BaseRoute]) -> Starlette:
    """A group of pages whose unknown addresses answer with an HTML problem page."""
    problem = _html_problems(web.renderer)
    return Starlette(
        routes=routes,
        exception_handlers={HTTPException: problem, DatabaseUnavailable: problem},
    )


def _settings_routes(page: PageRoute) -> list[BaseRoute]:
    return [
        page("/", login.settings_home),
        # The login used to live here: old bookmarks still reach it.
        Route("/login", _to_login),
        page("/api", api_keys.key_list),
        page("/api/keys/new", api_keys.new_key_form),
        page("/api/keys", api_keys.create_key, ["POST"]),
        page("/api/keys/{key_id}/revoke", api_keys.revoke_form),
        page("/api/keys/{key_id}/revoke", api_keys.revoke, ["POST"]),
        page("/webhooks", webhooks.endpoint_list),
        page("/webhooks/new", webhooks.new_endpoint_form),
        page("/webhooks", webhooks.create_endpoint, ["POST"]),
        page("/webhooks/{endpoint_id}", webhook_endpoint.endpoint_detail),
        page("/webhooks/{endpoint_id}/edit", webhooks.edit_endpoint_form),
        page("/webhooks/{endpoint_id}/edit", webhooks.update_endpoint, ["POST"]),
        page("/webhooks/{endpoint_id}/enabled", webhook_endpoint.set_enabled, ["POST"]),
        page("/webhooks/{endpoint_id}/test", webhook_endpoint.send_test, ["POST"]),
        page("/webhooks/{endpoint_id}/redeliver", webhook_endpoint.redeliver, ["POST"]),
        page("/webhooks/{endpoint_id}/replay", webhook_endpoint.replay, ["POST"]),
        page("/webhooks/{endpoint_id}/rotate", webhook_endpoint.rotate_secret, ["POST"]),
        page("/webhooks/{endpoint_id}/delete", webhook_endpoint.delete_form),
        page("/webhooks/{endpoint_id}/delete", webhook_endpoint.delete, ["POST"]),
        page("/email", mailboxes.mailbox_list),
        page("/email/new", mailboxes.new_mailbox_form),
        page("/email", mailboxes.create_mailbox, ["POST"]),
        page("/email/{mailbox_id}", mailboxes.mailbox_detail),
        page("/email/{mailbox_id}/edit", mailboxes.edit_mailbox_form),
        page("/email/{mailbox_id}/edit", mailboxes.update_mailbox, ["POST"]),
        page("/email/{mailbox_id}/rotate", mailboxes.rotate_token, ["POST"]),
        page("/email/{mailbox_id}/delete", mailboxes.delete_form),
        page("/email/{mailbox_id}/delete", mailboxes.delete, ["POST"]),
        page("/email/{mailbox_id}/parked/{parked_id}.eml", mailboxes.parked_message),
        page("/machine-users", machine_users.user_list),
        page("/machine-users/new", machine_users.new_user_form),
        page("/machine-users", machine_users.create_user, ["POST"]),
        page("/machine-users/{user_id}", machine_users.user_detail),
        page("/members", members.member_list),
        page("/members/new", members.new_member_form),
        page("/members", members.create_member, ["POST"]),
        page("/members/{member_id}/role", members.change_role, ["POST"]),
        page("/members/{member_id}/remove", members.remove_form),
        page("/members/{member_id}/remove", members.remove, ["POST"]),
        page("/members/{member_id}/invitation", members.invite, ["POST"]),
        page("/audit", audit.audit_log),
    ]


def _inbox_routes(page: PageRoute) -> list[BaseRoute]:
    issue = "/issues/{ticket_number:int}"
    return [
        page("/", inbox.queue, access=MEMBER),
        page("/bulk", inbox.bulk_update, ["POST"], access=MEMBER),
        page("/views", inbox.save_view, ["POST"], access=MEMBER),
        page("/views/{view_id}/delete", inbox.delete_view, ["POST"], access=MEMBER),
        # Live updates and collision (docs/inbox-live.md).
        page("/live", live.live_stream, access=MEMBER),
        page(f"{issue}/presence", presence.report_presence, ["POST"], access=MEMBER),
        page(f"{issue}/live", issue_live.issue_live, access=MEMBER),
        # The issue page (docs/inbox.md): the page, then one POST per action.
        page(issue, issue_page.issue_page, access=MEMBER),
        page(f"{issue}/messages", issue_page.send_message, ["POST"], access=MEMBER),
        page(f"{issue}/attachments", issue_page.upload_file, ["POST"], access=MEMBER),
        page(f"{issue}/status", issue_page.set_status, ["POST"], access=MEMBER),
        page(f"{issue}/priority", issue_page.set_priority, ["POST"], access=MEMBER),
        page(f"{issue}/assignee", issue_page.set_assignee, ["POST"], access=MEMBER),
        page(f"{issue}/labels", issue_page.set_labels, ["POST"], access=MEMBER),
        page(f"{issue}/merge", issue_page.merge_into, ["POST"], access=MEMBER),
        page("/attachments/{attachment_id}", issue_files.download, access=MEMBER),
    ]


def web_routes(
    settings: Settings, db: Database, server_key: ServerKey, events: LiveEvents
) -> list[BaseRoute]:
    """Every page's route: the login at the root, the inbox and the settings mounted."""
    web = _web(settings, db, server_key, events)

    def page(
        path: str, handler: Handler, methods: Sequence[str] = ("GET",), *, access: str = ADMIN
    ) -> Route:
        return Route(path, endpoint(web, handler, access=access), methods=list(methods))

    return [
        page("/", login.home, access=PUBLIC),
        page("/login", login.login_form, access=PUBLIC),
        page("/login", login.login, ["POST"], access=PUBLIC),
        page("/logout", login.logout, ["POST"], access=PUBLIC),
        page("/workspace", login.choose_form, access=PUBLIC),
        page("/workspace", login.choose, ["POST"], access=PUBLIC),
        page("/invitations/{token}", invitations.invitation_form, access=PUBLIC),
        page("/invitations/{token}", invitations.choose_password, ["POST"], access=PUBLIC),
        Mount("/inbox", app=_pages(web, _inbox_routes(page))),
        Mount("/settings", app=_pages(web, _settings_routes(page))),
        Mount("/static", StaticFiles(packages=[("supportdesk.web", "static")]), name="static"),
    ]
