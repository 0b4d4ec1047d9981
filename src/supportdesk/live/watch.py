"""What ends an open stream besides its client: its key revoked or expired, its reader too
far behind, or the process shutting down. Every live interface waits on the same
process-wide watches (`LiveEvents.keys`, one statement for all open streams' keys, and
`LiveEvents.stopping`); the SSE route waits on them beside its writes, and `watched`
wraps a feed for the others (GraphQL subscriptions), ending it with `StreamEnded` and the
reason."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any, Literal

from supportdesk.auth.principal import Principal
from supportdesk.domain.events import Event
from supportdesk.live.feed import Feed, Reset
from supportdesk.live.hub import LiveEvents
from supportdesk.live.subscription import FeedOverflow

Reason = Literal["key", "overflow", "shutdown"]


class StreamEnded(Exception):
    """The stream ended for `reason`: the key is no longer active ("key"), the reader fell
    too far behind ("overflow"), or the process is shutting down ("shutdown")."""

    def __init__(self, reason: Reason) -> None:
        super().__init__(reason)
        self.reason: Reason = reason


async def watched(
    live: LiveEvents, feed: Feed, principal: Principal
) -> AsyncIterator[Event | Reset]:
    """The feed's items until one of the reasons to end comes first: then StreamEnded.
    Iterate it inside the feed's `async with`."""
    key_ended = live.keys.watch(principal)
    watchers: dict[asyncio.Task[Any], Reason] = {
        asyncio.create_task(key_ended.wait()): "key",
        asyncio.create_task(feed.subscription.overflowed.wait()): "overflow",
        asyncio.create_task(live.stopping.wait()): "shutdown",
    }
    items = aiter(feed)
    following: asyncio.Future[Event | Reset] | None = None
    try:
        while True:
            following = asyncio.ensure_future(anext(items))
            done, _ = await asyncio.wait(
                {following, *watchers}, return_when=asyncio.FIRST_COMPLETED
            )
            if following not in done:
                raise StreamEnded(next(watchers[task] for task in done))
            try:
                item = following.result()
            except StopAsyncIteration:
                return
            except FeedOverflow:
                raise StreamEnded("overflow") from None
            yield item
    finally:
        live.keys.unwatch(principal, key_ended)
        # The feed's own generator is left only once no step of it runs.
        pending = [*watchers, *([following] if following is not None else [])]
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        await items.aclose()  # type: ignore[attr-defined]
