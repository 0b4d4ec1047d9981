"""GET /inbox/issues/<ticketNumber>/live: what an open issue page refreshes when an event
of its issue comes over its live stream (docs/inbox-live.md). The thread, with the
messages the page had not shown marked New, and, out of band, the badges, the controls
and the composer's `seen_up_to`: the page has shown the thread up to its newest message
now, so a reply sent from it is not held for those."""

from __future__ import annotations

import dataclasses

from starlette.responses import Response

from supportdesk.web.endpoint import Page
from supportdesk.web.pages import issue_page
from supportdesk.web.pages.issue_view import IssueView, issue_view
from supportdesk.web.pages.presence import LARGEST_TICKET_NUMBER

PARTIAL = "inbox/_issue_live.html"


def _marked_newer(view: IssueView, seen_up_to: str) -> IssueView:
    """The messages after `seen_up_to` (the newest the page showed) marked New."""
    ids = [entry.message.id for entry in view.thread]
    if seen_up_to not in ids:
        return view
    newer = set(ids[ids.index(seen_up_to) + 1 :])
    view.thread = [
        dataclasses.replace(entry, is_new=True) if entry.message.id in newer else entry
        for entry in view.thread
    ]
    return view


async def issue_live(page: Page) -> Response:
    number = page.request.path_params["ticket_number"]
    view = None
    if number <= LARGEST_TICKET_NUMBER:
        view = await issue_view(page.db, page.workspace_id, number)
    if view is None:
        return page.problem(404, "Issue not found", "There is no issue with that number here.")
    view = _marked_newer(view, page.request.query_params.get("seen_up_to", ""))
    values = issue_page.page_values(page, view)
    # `oob`: the controls bring the badges out of band; `controls_oob`: themselves too.
    return page.render(PARTIAL, **values, oob=True, controls_oob=True)
