"""POST /inbox/issues/<ticketNumber>/presence: an issue page's beat (docs/inbox-live.md).
The page says whether its member is viewing the issue or writing a reply (`state`), or
that it closed (`left`), and gets back the partial that lists the other members there."""

from __future__ import annotations

from starlette.responses import Response

from supportdesk.domain import presence
from supportdesk.domain.errors import InvalidArgument
from supportdesk.domain.issues.queries import fetch_issue_by_number
from supportdesk.web.endpoint import Page

LEFT = "left"
PARTIAL = "inbox/_presence.html"
# Ticket numbers are 32-bit integers in the database: a larger one names no issue.
LARGEST_TICKET_NUMBER = 2**31 - 1


async def issue_id_of(page: Page) -> str | None:
    """The issue of the address's ticket number, in the member's workspace."""
    number = page.request.path_params["ticket_number"]
    if number > LARGEST_TICKET_NUMBER:
        return None
    issue = await fetch_issue_by_number(page.db, page.workspace_id, number)
    return issue.id if issue is not None else None


async def report_presence(page: Page) -> Response:
    issue_id = await issue_id_of(page)
    if issue_id is None:
        return page.problem(404, "Issue not found", "There is no issue with that number here.")
    state = page.field("state")
    if state == LEFT:
        await presence.leave(page.db, page.workspace_id, issue_id, page.me.admin.id)
        return Response(status_code=204)
    try:
        others = await presence.beat(page.db, page.workspace_id, issue_id, page.me.admin.id, state)
    except InvalidArgument:
        return page.problem(400, "Not a presence", "`state` is viewing, replying or left.")
    return page.render(PARTIAL, others=others)
