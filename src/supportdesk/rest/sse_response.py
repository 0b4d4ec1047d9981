"""The answer of GET /v1/events/stream (and of the inbox's /inbox/live): a feed written
as server-sent events until the client goes, its holder (the key; a member's login) is no
longer active, the reader falls too far behind, or the process shuts down."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Coroutine
from typing import Any

from starlette.types import Receive, Scope, Send

from supportdesk.domain.clock import now
from supportdesk.http.sse_stream import ServerSentEvents, disconnected
from supportdesk.live import ActiveWatch, Feed, FeedOverflow, Lease, LiveEvents, Reset, sse

logger = logging.getLogger("supportdesk.live")


class EventStreamResponse(ServerSentEvents):
    def __init__(
        self,
        live: LiveEvents,
        feed: Feed,
        lease: Lease,
        watch: ActiveWatch[Any],
        holder: object,
    ) -> None:
        """`holder` is what `watch` checks: the key's Principal in `live.keys`, or another
        kind of holder in a watch of its own."""
        super().__init__(live.settings.event_stream_keepalive_seconds)
        self.live = live
        self.feed = feed
        self.lease = lease
        self.watch = watch
        self.holder = holder

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        metrics = self.live.metrics
        if metrics is not None:
            metrics.opened()
        self._holder_ended = self.watch.watch(self.holder)
        try:
            await self._start(send)
            async with self.feed:
                if await self._stream(receive):
                    await self._finish()
        finally:
            self.watch.unwatch(self.holder, self._holder_ended)
            self.live.slots.give_back(self.lease)
            if metrics is not None:
                metrics.closed()

    async def _stream(self, receive: Receive) -> bool:
        """Until the first of its reasons to end; whether the client is still there."""
        watched: dict[asyncio.Task[Any], bool] = {
            self._task(self._pump()): True,
            self._task(self._keep_alive()): True,
            self._task(self._holder_ended.wait()): True,
            self._task(self.live.stopping.wait()): True,
            self._task(self.feed.subscription.overflowed.wait()): False,
            self._task(disconnected(receive)): False,
        }
        try:
            done, _ = await asyncio.wait(watched, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in watched:
                task.cancel()
            await asyncio.gather(*watched, return_exceptions=True)
        for task in done:
            if not task.cancelled() and task.exception() is not None:
                logger.error("event stream failed", exc_info=task.exception())
        return all(watched[task] for task in done)

    @staticmethod
    def _task(work: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        return asyncio.create_task(work)

    async def _pump(self) -> None:
        metrics = self.live.metrics
        messages, scopes = self.live.messages, self.feed.reader.scopes
        with contextlib.suppress(FeedOverflow):  # the overflow's own watch ends the stream
            async for batch in self.feed.batches():
                # Everything the feed had for this stream in one body chunk: the write is
                # what a stream costs a busy process, more than the events in it.
                await self._write(
                    b"".join(
                        sse.reset_message(item)
                        if isinstance(item, Reset)
                        else messages.message(item, scopes)
                        for item in batch
                    )
                )
                if metrics is not None and self.feed.caught_up:
                    written_at = now()
                    for item in batch:
                        if not isinstance(item, Reset):
                            metrics.written((written_at - item.created_at).total_seconds())
            await asyncio.Event().wait()
