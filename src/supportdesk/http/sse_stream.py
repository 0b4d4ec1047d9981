"""A response written as server-sent events for as long as it lasts: what the REST event
stream and GraphQL over SSE share. A keep-alive comment goes out whenever nothing else did
for a while, so that proxies and clients can tell a quiet stream from a dead one."""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any

from starlette.responses import Response
from starlette.types import Receive, Send

from supportdesk.live import sse

# How long the last write may wait for a reader that stopped reading.
CLOSING_SECONDS = 1.0

STREAM_HEADERS = {
    "cache-control": "no-cache, no-store",
    # nginx and proxies like it: pass each message on at once, do not buffer the answer.
    "x-accel-buffering": "no",
}


class ServerSentEvents(Response):
    media_type = sse.MEDIA_TYPE

    def __init__(self, keep_alive: float, headers: dict[str, str] | None = None) -> None:
        super().__init__(headers={**STREAM_HEADERS, **(headers or {})}, media_type=sse.MEDIA_TYPE)
        self.keep_alive = keep_alive
        self._send: Send | None = None
        self._written_at = time.monotonic()
        self._writing = asyncio.Lock()

    def init_headers(self, headers: Any = None) -> None:
        super().init_headers(headers)
        # A stream has no length; Response would announce an empty body.
        self.raw_headers = [(k, v) for k, v in self.raw_headers if k != b"content-length"]

    async def _start(self, send: Send) -> None:
        self._send = send
        await send({"type": "http.response.start", "status": 200, "headers": self.raw_headers})

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

    async def _keep_alive(self) -> None:
        while True:
            await asyncio.sleep(self._written_at + self.keep_alive - time.monotonic())
            if time.monotonic() - self._written_at >= self.keep_alive:
                await self._write(sse.comment("keep-alive"))


async def disconnected(receive: Receive) -> None:
    """Returns when the client has gone."""
    while (await receive())["type"] != "http.disconnect":
        pass
