"""The bench's webhook receiver: `python -m bench.receiver --port P`, in a process of its own.

It answers every POST with 204 at once and notes, per attempt, the wall-clock time it
arrived (epoch seconds, the same clock as the server's on this machine), the `webhook-id`
header and the body's `createdAt` and `type`. `GET /records?after=N` hands the notes from
the N-th on to the bench; `GET /healthz` says it is up. A bare ASGI app on uvicorn (uvloop,
httptools, one process, no access log): a few tens of microseconds of CPU per delivery, so
it is never what limits the server under test. Signatures are not checked here (the
dispatcher's own tests do that); this receiver only times and counts.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import parse_qs

import orjson

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

# (arrival epoch seconds, webhook-id, createdAt, type) per attempt, in arrival order.
Record = tuple[float, str, str, str]


class Receiver:
    """The ASGI app."""

    def __init__(self) -> None:
        self.records: list[Record] = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            while True:
                kind = (await receive())["type"]  # lifespan.startup, then .shutdown
                await send({"type": f"{kind}.complete"})
                if kind == "lifespan.shutdown":
                    return
        if scope["method"] == "POST":
            await self._hook(scope, receive, send)
        elif scope["path"] == "/records":
            after = int(parse_qs(scope["query_string"].decode()).get("after", ["0"])[0])
            await _answer(send, 200, orjson.dumps(self.records[after:]))
        else:
            await _answer(send, 200, b"ok")

    async def _hook(self, scope: Scope, receive: Receive, send: Send) -> None:
        arrived = time.time()
        chunks = []
        while True:
            message = await receive()
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        webhook_id = ""
        for name, value in scope["headers"]:
            if name == b"webhook-id":
                webhook_id = value.decode()
                break
        try:
            event = orjson.loads(b"".join(chunks))
            created, kind = str(event.get("createdAt", "")), str(event.get("type", ""))
        except orjson.JSONDecodeError:
            created, kind = "", ""
        self.records.append((arrived, webhook_id, created, kind))
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})


async def _answer(send: Send, status: int, body: bytes) -> None:
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def main() -> None:
    import uvicorn

    parser = argparse.ArgumentParser(prog="python -m bench.receiver", description=__doc__)
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    uvicorn.run(
        Receiver(),
        host="127.0.0.1",
        port=args.port,
        loop="uvloop",
        http="httptools",
        access_log=False,
        log_level="warning",
        backlog=4096,
    )


if __name__ == "__main__":
    main()
