"""The answer of GET /v1/events/stream: a feed written as server-sent events until the
client goes, the key is revoked or expires, the reader falls too far behind, or the
process shuts down. A keep-alive comment goes out whenever nothing else did for a while,
so that proxies and clients can tell a quiet stream from a dead one."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Coroutine
from typing import Any

from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from supportdesk.auth.principal import Principal
from supportdesk.domain.clock import now
from supportdesk.live import Feed, FeedOverflow, Lease, LiveEvents, Reset, sse

logger = logging.getLogger("supportdesk.live")

# How long the last write may wait for a reader that stopped reading.
CLOSING_SECONDS = 1.0

STREAM_HEADERS = {
    "cache-control": "no-cache, no-store",
    # nginx and proxies like it: pass each message on at once, do not buffer the answer.
    "x-accel-buffering": "no",
}


class EventStreamResponse(Response):
    media_type = sse.MEDIA_TYPE

    def __init__(self, live: LiveEvents, feed: Feed, principal: Principal, lease: Lease) -> None:
        super().__init__(headers=STREAM_HEADERS, media_type=sse.MEDIA_TYPE)
        self.live = live
        self.feed = feed
        self.principal = principal
        self.lease = lease
        self.keep_alive = live.settings.event_stream_keepalive_seconds
        self._send: Send | None = None
        self._written_at = time.monotonic()
        self._writing = asyncio.Lock()

    def init_headers(self, headers: Any = None) -> None:
        super().init_headers(headers)
        # A stream has no length; Response would announce an empty body.
        self.raw_headers = [(k, v) for k, v in self.raw_headers if k != b"content-length"]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        metrics = self.live.metrics
        if metrics is not None:
            metrics.opened()
        self._key_ended = self.live.keys.watch(self.principal)
        try:
            self._send = send
            await send({"type": "http.response.start", "status": 200, "headers": self.raw_headers})
            async with self.feed:
                if await self._stream(receive):
                    await self._finish()
        finally:
            self.live.keys.unwatch(self.principal, self._key_ended)
            self.live.slots.give_back(self.lease)
            if metrics is not None:
                metrics.closed()

    async def _stream(self, receive: Receive) -> bool:
        """Until the first of its reasons to end; whether the client is still there."""
        watched: dict[asyncio.Task[Any], bool] = {
            self._task(self._pump()): True,
            self._task(self._keep_alive()): True,
            self._task(self._key_ended.wait()): True,
            self._task(self.live.stopping.wait()): True,
            self._task(self.feed.subscription.overflowed.wait()): False,
            self._task(_disconnected(receive)): False,
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

    async def _write(self, data: bytes) -> None:
        assert self._send is not None
        async with self._writing:
            await self._send({"type": "http.response.body", "body": data, "more_body": True})
            self._written_at = time.monotonic()

    async def _finish(self) -> None:
        assert self._send is not None
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(CLOSING_SECONDS), self._writing:
                await self._send({"type": "http.response.body", "body": b"", "more_body": False})

    async def _pump(self) -> None:
        metrics = self.live.metrics
        messages, scopes = self.live.messages, self.principal.scopes
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

    async def _keep_alive(self) -> None:
        while True:
            await asyncio.sleep(self._written_at + self.keep_alive - time.monotonic())
            if time.monotonic() - self._written_at >= self.keep_alive:
                await self._write(sse.comment("keep-alive"))


async def _disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass
