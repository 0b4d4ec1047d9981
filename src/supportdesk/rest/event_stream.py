"""GET /v1/events/stream (docs/events-stream.md): the key's events as server-sent events,
from `Last-Event-ID` (or `?after=`) on, of `?types=` only.

Refusals come before the stream starts, in the REST shape: 400 for a parameter that is not
what it should be, 429 past the key's open streams."""

from __future__ import annotations

import re

from starlette.requests import Request
from starlette.responses import Response

from supportdesk.auth.principal import Principal
from supportdesk.domain.errors import ErrorCode, InvalidArgument
from supportdesk.live import LiveEvents, visible_types
from supportdesk.rest.errors import RestError
from supportdesk.rest.sse_response import EventStreamResponse

LAST_EVENT_ID = "Last-Event-ID"
_SEQUENCE = re.compile(r"[0-9]{1,15}")


def invalid(field: str, message: str) -> RestError:
    return RestError(400, ErrorCode.VALIDATION_FAILED, message, fields=[(field, "INVALID")])


def _sequence(values: list[str], field: str) -> int | None:
    values = [value for value in values if value != ""]
    if not values:
        return None
    if len(values) > 1 or not _SEQUENCE.fullmatch(values[0]):
        raise invalid(field, f"`{field}` must be one event sequence (a whole number, 0 or more).")
    return int(values[0])


def requested_after(request: Request) -> int | None:
    """The sequence to resume after: Last-Event-ID, which a reconnecting EventSource sends
    while its URL still carries the first `after`, wins over `?after=`."""
    resumed = _sequence(request.headers.getlist(LAST_EVENT_ID), LAST_EVENT_ID)
    # Read even when the header wins: a bad `after` is refused whatever comes with it.
    after = _sequence(request.query_params.getlist("after"), "after")
    return resumed if resumed is not None else after


def requested_types(request: Request, principal: Principal) -> frozenset[str]:
    given = request.query_params.getlist("types")
    if not given:
        return visible_types(principal, None)
    wanted = [kind.strip() for value in given for kind in value.split(",")]
    if not all(wanted):
        raise invalid("types", "`types` is a comma-separated list of event types.")
    try:
        return visible_types(principal, wanted)
    except InvalidArgument as error:
        raise invalid("types", str(error)) from None


def too_many_streams(limit: int) -> RestError:
    return RestError(
        429,
        ErrorCode.LIMIT_REACHED,
        f"This key has {limit} event streams open, the most it may; close one first.",
        limit=limit,
    )


async def stream_events(request: Request, principal: Principal) -> Response:
    live: LiveEvents = request.app.state.live
    after = requested_after(request)
    types = requested_types(request, principal)
    try:
        feed = await live.feed(principal, after, types)
    except InvalidArgument as error:
        last = error.extensions["lastSequence"]
        raise RestError(400, "BAD_USER_INPUT", str(error), last_sequence=last) from None
    lease = await live.slots.take(principal.key_id)
    if lease is None:
        raise too_many_streams(live.slots.per_key)
    return EventStreamResponse(live, feed, lease, live.keys, principal)
