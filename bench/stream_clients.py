"""`python -m bench.stream_clients --url U --keys FILE --per-key N`: many open event streams
held by one process, for the stream scenario (bench/stream.py).

Each stream is a raw asyncio connection (no thread, no HTTP library): a GET, then the
chunked answer read a chunk at a time. Every message's arrival time is noted by its `id`;
an event's JSON is parsed once, by the first stream it reaches, for its `createdAt`.

It prints `open <count>` once every stream answered 200, then reads its standard input:
`mark` forgets what arrived so far (the events before the measured ones); `figures` prints
one JSON line with, for the events since the last mark, each arrival's delay after
`createdAt` in ms, and how many events each stream received; `stop` (or the end of input)
closes the streams and exits."""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from datetime import datetime
from urllib.parse import urlsplit

import orjson

OPENING_AT_ONCE = 50


class Arrivals:
    def __init__(self) -> None:
        self.created: dict[bytes, float] = {}
        self.times: dict[bytes, list[float]] = {}
        self.counts: list[int] = []

    def mark(self) -> None:
        self.times.clear()
        self.counts = [0] * len(self.counts)

    def seen(self, stream: int, event_id: bytes, data: bytes, at: float) -> None:
        if event_id not in self.created:
            created_at = orjson.loads(data)["createdAt"]
            self.created[event_id] = datetime.fromisoformat(created_at).timestamp()
        self.times.setdefault(event_id, []).append(at)
        self.counts[stream] += 1

    def figures(self) -> dict[str, object]:
        delays = [
            (at - self.created[event_id]) * 1000
            for event_id, times in self.times.items()
            for at in times
        ]
        return {"events": len(self.times), "delays_ms": delays, "per_stream": self.counts}


Connection = tuple[asyncio.StreamReader, asyncio.StreamWriter]


async def _open(host: str, port: int, key: str, query: str) -> Connection:
    reader, writer = await asyncio.open_connection(host, port, limit=1 << 20)
    writer.write(
        f"GET /v1/events/stream{query} HTTP/1.1\r\nHost: {host}:{port}\r\n"
        f"Authorization: Bearer {key}\r\nAccept: text/event-stream\r\n\r\n".encode()
    )
    status = await reader.readline()
    if b" 200 " not in status:
        raise RuntimeError(f"a stream was refused: {status!r} {await reader.read(500)!r}")
    while await reader.readline() not in (b"\r\n", b""):
        pass  # the headers
    return reader, writer


async def _read(number: int, reader: asyncio.StreamReader, arrivals: Arrivals) -> None:
    """Chunked framing around SSE messages; a message may span chunks."""
    pending = b""
    while True:
        size = int((await reader.readline()).split(b";")[0], 16)
        if size == 0:
            return
        pending += (await reader.readexactly(size + 2))[:-2]
        while (end := pending.find(b"\n\n")) >= 0:
            message, pending = pending[:end], pending[end + 2 :]
            if message.startswith(b"id: "):
                event_id, _, rest = message[4:].partition(b"\n")
                data = rest[rest.index(b"data: ") + 6 :]
                arrivals.seen(number, event_id, data, time.time())


async def main(url: str, keys: list[str], per_key: int, query: str) -> None:
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    loop = asyncio.get_running_loop()
    arrivals = Arrivals()
    gate = asyncio.Semaphore(OPENING_AT_ONCE)

    async def opened(key: str) -> Connection:
        async with gate:
            return await _open(host, port, key, query)

    connections = await asyncio.gather(*(opened(key) for key in keys for _ in range(per_key)))
    arrivals.counts = [0] * len(connections)
    tasks = [asyncio.create_task(_read(n, r, arrivals)) for n, (r, _) in enumerate(connections)]
    print(f"open {len(connections)}", flush=True)
    stdin = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stdin), sys.stdin)
    while (line := (await stdin.readline()).strip()) not in (b"stop", b""):
        if line == b"mark":
            arrivals.mark()
            print("marked", flush=True)
        elif line == b"figures":
            print(orjson.dumps(arrivals.figures()).decode(), flush=True)
    for task in tasks:
        task.cancel()
    for _, writer in connections:
        writer.close()


def run() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.stream_clients")
    parser.add_argument("--url", required=True)
    parser.add_argument("--keys", required=True, help="a file of bearer secrets, one a line")
    parser.add_argument("--per-key", type=int, default=10)
    parser.add_argument("--query", default="", help="e.g. ?types=issue.created")
    args = parser.parse_args()
    with open(args.keys) as file:
        keys = [line.strip() for line in file if line.strip()]
    try:
        import uvloop

        uvloop.install()
    except ImportError:
        pass
    asyncio.run(main(args.url, keys, args.per_key, args.query))


if __name__ == "__main__":
    run()
