"""GET /inbox/live: the workspace's events as server-sent events for an inbox page, with
the member's session instead of a key (docs/inbox-live.md). The same feed and answer as
GET /v1/events/stream: resumed by Last-Event-ID or ?after=N, keep-alives, at most so many
open streams per member; it ends within a few seconds of the login ending or the member
being removed."""

from __future__ import annotations

from starlette.responses import Response

from supportdesk.domain.errors import InvalidArgument
from supportdesk.domain.events import readable_types
from supportdesk.domain.events.tail import last_sequences
from supportdesk.domain.org_admins import SeatInUse
from supportdesk.rest.errors import RestError
from supportdesk.rest.event_stream import requested_after
from supportdesk.rest.sse_response import EventStreamResponse
from supportdesk.web.endpoint import Page
from supportdesk.web.live_reader import MemberReader, member_scopes

PATH = "/inbox/live"


async def live_url(page: Page) -> str:
    """Where a page just rendered listens (`live_url` of inbox/_live.html): after the last
    event it could show, so that nothing committed between its rendering and its stream's
    start is missed. A page rendered without it follows from when its stream opens."""
    last = (await last_sequences(page.db, [page.workspace_id])).get(page.workspace_id, 0)
    return f"{PATH}?after={last}"


async def live_stream(page: Page) -> Response:
    live = page.web.live
    try:
        after = requested_after(page.request)
    except RestError as error:
        return page.problem(400, "Not a position in the event log", error.message)
    reader = MemberReader(page.workspace_id, member_scopes(page.me.admin.role))
    types = frozenset(readable_types(reader.scopes))
    try:
        feed = await live.feed(reader, after, types)
    except InvalidArgument:
        # A position past the log's end (a database restored from a backup): the page
        # cannot have seen it; it follows from now on.
        feed = await live.feed(reader, None, types)
    lease = await live.slots.take(f"member:{page.workspace_id}:{page.me.admin.id}")
    if lease is None:
        limit = live.slots.per_key
        return page.problem(
            429,
            "Too many live pages",
            f"You have {limit} inbox pages following live updates, the most you may. "
            "Close one and reload this page.",
        )
    assert page.session.id is not None
    me = page.me.admin
    seat = SeatInUse.of(page.session.id, page.workspace_id, me.id, me.role)
    return EventStreamResponse(live, feed, lease, page.web.logins, seat)
