"""The audit log of keys, machine users, webhook endpoints, mailboxes and org admins: who
did what, when, from where."""

from __future__ import annotations

from starlette.responses import Response

from supportdesk.domain import audit
from supportdesk.domain.errors import InvalidArgument
from supportdesk.domain.pagination import PageRequest
from supportdesk.web.endpoint import Page, redirect

PAGE_SIZE = 50
TARGET_TYPES = ("ApiKey", "Mailbox", "MachineUser", "Member", "WebhookEndpoint")
ACTIONS = {
    "api_key.created": "Key created",
    "api_key.revoked": "Key revoked",
    "machine_user.created": "Machine user created",
    "machine_user.updated": "Machine user updated",
    "webhook_endpoint.created": "Webhook endpoint added",
    "webhook_endpoint.updated": "Webhook endpoint changed",
    "webhook_endpoint.deleted": "Webhook endpoint deleted",
    "mailbox.created": "Mailbox added",
    "mailbox.updated": "Mailbox changed",
    "mailbox.deleted": "Mailbox deleted",
    "org_admin.created": "Person added",
    "member.created": "Member added",
    "member.updated": "Member changed",
    "member.removed": "Member removed",
    "member.invited": "Invitation link made",
    "member.password_set": "Password chosen",
    "org_admin.sessions_ended": "Logged out everywhere",
    # The e-mail-wide lock of the login throttle: wrong passwords from many addresses.
    "org_admin.login_locked": "Logins paused",
}
ACTOR_TYPES = {
    "org_admin": "Org admin",
    "machine_user": "Machine user (API key)",
    "cli": "Command line",
    "anonymous": "Not logged in",
}


async def audit_log(page: Page) -> Response:
    cursors = await page.cursors()
    try:
        after = page.request.query_params.get("after") or None
        request = PageRequest.of(PAGE_SIZE, after, cursors, "AuditEvent")
    except InvalidArgument:
        return redirect("/settings/audit")
    events = await audit.list_audit_events(
        page.db, page.workspace_id, request, target_types=TARGET_TYPES
    )
    return page.render(
        "audit.html",
        section="audit",
        events=events.items,
        actions=ACTIONS,
        actor_types=ACTOR_TYPES,
        next_after=cursors.encode(events.items[-1].id) if events.has_next else None,
    )
