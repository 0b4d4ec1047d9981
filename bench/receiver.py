"""The bench's webhook receiver: `python -m bench.receiver --port P`, in a process of its own.

It answers every POST with 204 at once and notes, per attempt, the wall-clock time it
arrived (epoch seconds, the same clock as the server's on this machine), the `webhook-id`
header and the body's `createdAt` and `type`. `GET /records?after=N` hands the notes from
the N-th on to the bench; `GET /healthz` says it is up.

It stands for a receiver on another machine, yet runs on the server's cores: whatever it
spends is taken from the server under test. So it is an asyncio protocol on uvloop with
httptools' parser (what uvicorn is built on) and nothing above them, about 20 µs of CPU per
delivery where a bare ASGI app on uvicorn took 50 to 120. Signatures are not checked here
(the dispatcher's own tests do that); this receiver only times and counts.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httptools
import orjson
import uvloop

# (arrival epoch seconds, webhook-id, createdAt, type) per attempt, in arrival order.
Record = tuple[float, str, str, str]
NO_CONTENT = b"HTTP/1.1 204 No Content\r\n\r\n"


class Exchange(asyncio.Protocol):
    """One keep-alive connection: each request is answered when its message is complete."""

    def __init__(self, records: list[Record]) -> None:
        self._records = records
        self._parser = httptools.HttpRequestParser(self)
        self._transport: Any = None  # uvloop's TCPTransport, not an asyncio class
        self._reset()

    def _reset(self) -> None:
        self._url = b""
        self._webhook_id = b""
        self._body: list[bytes] = []
        self._arrived = 0.0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = transport

    def data_received(self, data: bytes) -> None:
        try:
            self._parser.feed_data(data)
        except httptools.HttpParserError:
            self._transport.close()

    # httptools' callbacks
    def on_message_begin(self) -> None:
        self._arrived = time.time()

    def on_url(self, url: bytes) -> None:
        self._url += url

    def on_header(self, name: bytes, value: bytes) -> None:
        if name.lower() == b"webhook-id":
            self._webhook_id = value

    def on_body(self, body: bytes) -> None:
        self._body.append(body)

    def on_message_complete(self) -> None:
        if self._parser.get_method() == b"POST":
            self._note()
            self._transport.write(NO_CONTENT)
        else:
            self._transport.write(self._answer_get())
        if not self._parser.should_keep_alive():
            self._transport.close()
        self._reset()

    def _note(self) -> None:
        try:
            event = orjson.loads(b"".join(self._body))
            created, kind = str(event.get("createdAt", "")), str(event.get("type", ""))
        except (orjson.JSONDecodeError, AttributeError):
            created, kind = "", ""
        self._records.append((self._arrived, self._webhook_id.decode(), created, kind))

    def _answer_get(self) -> bytes:
        parts = urlsplit(self._url.decode())
        if parts.path == "/records":
            after = int(parse_qs(parts.query).get("after", ["0"])[0])
            body = orjson.dumps(self._records[after:])
        else:
            body = b"ok"
        head = (
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
            f"content-length: {len(body)}\r\n\r\n"
        )
        return head.encode() + body


async def serve(port: int) -> None:
    records: list[Record] = []
    loop = asyncio.get_running_loop()
    server = await loop.create_server(
        lambda: Exchange(records), "127.0.0.1", port, backlog=4096, reuse_address=True
    )
    async with server:
        await server.serve_forever()


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.receiver", description=__doc__)
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    uvloop.run(serve(args.port))


if __name__ == "__main__":
    main()
