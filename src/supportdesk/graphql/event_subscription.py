"""subscription { events(after, types) }: the live event stream (docs/events-stream.md) over
GraphQL, under the rules of GET /v1/events/stream: what the key may read, as it may see
it, from `after` on with no gap and no duplicate, in one of the key's stream slots.

Refusals come before the first event, as the subscription's errors. Once it runs, a
payload whose errors say EVENTS_EXPIRED stands for the stream's reset, and the stream goes
on; a key revoked or expired, or a reader too far behind, ends it with one last payload
of errors."""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator

import strawberry
from graphql import GraphQLError

from supportdesk.auth.authenticate import is_still_active
from supportdesk.auth.principal import Principal
from supportdesk.domain.clock import now
from supportdesk.domain.errors import InvalidArgument
from supportdesk.graphql.context import Info
from supportdesk.graphql.errors import graphql_error
from supportdesk.graphql.events import Event
from supportdesk.live import (
    Feed,
    Lease,
    LiveEvents,
    Reset,
    StreamEnded,
    visible_types,
    watched,
)


def events_expired(reset: Reset) -> GraphQLError:
    return graphql_error(
        "EVENTS_EXPIRED",
        "Events after your position are no longer kept; the stream goes on from"
        f" {reset.oldest_sequence}, the oldest one kept.",
        oldestSequence=reset.oldest_sequence,
    )


def _ended(ended: StreamEnded, buffer: int) -> GraphQLError:
    if ended.reason == "key":
        return graphql_error(
            "UNAUTHENTICATED",
            "The API key was revoked or has expired; this stream ended.",
            reason="inactive",
        )
    return graphql_error(
        "LIMIT_REACHED",
        f"This stream fell more than {buffer:,} events behind and was ended; subscribe"
        " again with `after` set to the last sequence you saw.",
        limit=buffer,
    )


class EventStream:
    """One subscription's source stream. It holds one of the key's stream slots from its
    making until it is closed (`aclose`, which the executor calls however it ends)."""

    def __init__(self, live: LiveEvents, feed: Feed, principal: Principal, lease: Lease) -> None:
        self._live = live
        self._feed = feed
        self._principal = principal
        self._lease = lease
        self._items = self._run()
        self._open = True
        if live.metrics is not None:
            live.metrics.opened()

    def __aiter__(self) -> EventStream:
        return self

    async def __anext__(self) -> Event | GraphQLError:
        return await anext(self._items)

    async def aclose(self) -> None:
        if not self._open:
            return
        self._open = False
        try:
            await self._items.aclose()
        finally:
            self._live.slots.give_back(self._lease)
            if self._live.metrics is not None:
                self._live.metrics.closed()

    async def _run(self) -> AsyncGenerator[Event | GraphQLError, None]:
        live = self._live
        async with self._feed:
            try:
                async for item in watched(live, self._feed, self._principal):
                    if isinstance(item, Reset):
                        yield events_expired(item)
                        continue
                    yield Event.of(item)
                    if live.metrics is not None and self._feed.caught_up:
                        live.metrics.written((now() - item.created_at).total_seconds())
            except StreamEnded as ended:
                if ended.reason != "shutdown":  # at shutdown: complete, as a request ends
                    raise _ended(ended, live.settings.event_stream_buffer) from None


@strawberry.type
class EventSubscriptions:
    @strawberry.subscription(
        description="The workspace's events as they are committed: those after `after` (a"
        " sequence) first, then live ones, with no gap and no duplicate; only the types"
        " whose objects this key may read, or of `types`. A payload with the error"
        " EVENTS_EXPIRED (`extensions.oldestSequence`) says events after `after` are no"
        " longer kept: the stream goes on from the oldest one kept."
    )
    async def events(
        self, info: Info, after: int | None = None, types: list[str] | None = None
    ) -> AsyncIterator[Event]:
        context = info.context
        live = context.live
        if live is None:
            raise graphql_error("NOT_CONFIGURED", "Subscriptions are not served here.")
        principal = context.principal
        if after is not None and after < 0:
            raise InvalidArgument("`after` must be 0 or more.")
        wanted = visible_types(principal, types)
        # A connection outlives its authentication: a key revoked since is refused here.
        if not await is_still_active(live.db, principal, now()):
            raise _ended(StreamEnded("key"), live.settings.event_stream_buffer)
        feed = await live.feed(principal, after, wanted)
        lease = await live.slots.take(principal.key_id)
        if lease is None:
            limit = live.slots.per_key
            raise graphql_error(
                "LIMIT_REACHED",
                f"This key has {limit} event streams open, the most it may; close one first.",
                limit=limit,
            )
        return EventStream(live, feed, principal, lease)  # type: ignore[return-value]
