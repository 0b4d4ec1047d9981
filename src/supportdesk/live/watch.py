"""What ends an open stream besides its client: its key revoked or expired, its reader too
far behind, or the process shutting down. The SSE route watches these itself; `watched`
wraps a feed for any other live interface (GraphQL subscriptions), ending it with
`StreamEnded` and the reason."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from typing import Any, Literal

from supportdesk.auth.authenticate import is_still_active
from supportdesk.auth.principal import Principal
from supportdesk.db import Database
from supportdesk.domain.clock import now
from supportdesk.domain.events import Event
from supportdesk.live.feed import Feed, Reset
from supportdesk.live.shutdown import is_stopping
from supportdesk.live.subscription import FeedOverflow

logger = logging.getLogger("supportdesk.live")

# How often an open stream checks that its key is still active, and that the process is
# not shutting down: a revoked key's stream ends within this plus a statement.
CHECK_SECONDS = 2.0
SHUTDOWN_CHECK_SECONDS = 0.5

Reason = Literal["key", "overflow", "shutdown"]


class StreamEnded(Exception):
    """The stream ended for `reason`: the key is no longer active ("key"), the reader fell
    too far behind ("overflow"), or the process is shutting down ("shutdown")."""

    def __init__(self, reason: Reason) -> None:
        super().__init__(reason)
        self.reason: Reason = reason


async def key_ends(db: Database, principal: Principal) -> None:
    """Returns once the principal's key is revoked or expired."""
    while True:
        await asyncio.sleep(CHECK_SECONDS)
        try:
            if not await is_still_active(db, principal, now()):
                return
        except Exception:  # a database hiccup does not end the stream
            logger.warning("could not check an event stream's key", exc_info=True)


async def shutdown_begins() -> None:
    """Returns once the process is shutting down."""
    while not is_stopping():  # noqa: ASYNC110 (set from a signal handler)
        await asyncio.sleep(SHUTDOWN_CHECK_SECONDS)


async def watched(db: Database, feed: Feed, principal: Principal) -> AsyncIterator[Event | Reset]:
    """The feed's items until one of the reasons to end comes first: then StreamEnded.
    Iterate it inside the feed's `async with`."""
    watchers: dict[asyncio.Task[Any], Reason] = {
        asyncio.create_task(key_ends(db, principal)): "key",
        asyncio.create_task(feed.subscription.overflowed.wait()): "overflow",
        asyncio.create_task(shutdown_begins()): "shutdown",
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
        # The feed's own generator is left only once no step of it runs.
        pending = [*watchers, *([following] if following is not None else [])]
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        await items.aclose()  # type: ignore[attr-defined]
