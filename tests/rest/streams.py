"""Reading GET /v1/events/stream in the tests: a stream read on a thread of its own into a
queue, so that a test waits for what it expects with a time-out."""

from __future__ import annotations

import contextlib
import json
import queue
import socket
import threading
import time
from typing import Any

import httpx
from httpx_sse import EventSource, ServerSentEvent

PATH = "/v1/events/stream"
# What the reading thread puts in the queue when the server ended the stream.
ENDED = "ended"


class Stream:
    """An open stream (status 200), or the refusal's status and JSON body."""

    def __init__(
        self,
        base_url: str,
        key: str | None,
        *,
        params: dict[str, str] | None = None,
        headers: dict[str, str] | None = None,
        raw: bool = False,
        path: str = PATH,
    ) -> None:
        """`key` None: no Authorization (the inbox's stream, with a session cookie in
        `headers`)."""
        self.http = httpx.Client(base_url=base_url, timeout=httpx.Timeout(10, read=None))
        authorization = {"Authorization": f"Bearer {key}"} if key is not None else {}
        request = self.http.build_request(
            "GET", path, params=params, headers={**authorization, **(headers or {})}
        )
        self.response = self.http.send(request, stream=True)
        self.status = self.response.status_code
        self.headers = self.response.headers
        self.items: queue.Queue[Any] = queue.Queue()
        # (time.time() on arrival, the message id) of every message, for latency figures.
        self.arrivals: list[tuple[float, str]] = []
        self.body: Any = None
        self.ended_by: Exception | None = None
        if self.status != 200:
            self.response.read()
            json_body = self.response.headers.get("content-type", "").startswith("application/json")
            self.body = self.response.json() if json_body else self.response.text
            self.close()
            return
        self._thread = threading.Thread(target=self._read, args=(raw,), daemon=True)
        self._thread.start()

    def _read(self, raw: bool) -> None:
        try:
            if raw:
                for line in self.response.iter_lines():
                    self.items.put(line)
            else:
                for message in EventSource(self.response).iter_sse():
                    self.arrivals.append((time.time(), message.id))
                    self.items.put(message)
        except Exception as error:
            # Closed by the test, or its server killed: whatever the transport raised
            # then, the stream has ended, and ENDED says so to the test.
            self.ended_by = error
        finally:
            self.items.put(ENDED)

    def next(self, timeout: float = 5) -> Any:
        item = self.items.get(timeout=timeout)
        assert item != ENDED, "the stream ended"
        return item

    def take(self, count: int, timeout: float = 5) -> list[ServerSentEvent]:
        deadline = time.monotonic() + timeout
        return [self.next(max(0.01, deadline - time.monotonic())) for _ in range(count)]

    def nothing_within(self, seconds: float) -> bool:
        try:
            item = self.items.get(timeout=seconds)
        except queue.Empty:
            return True
        self.items.put(item)
        return False

    def ends_within(self, seconds: float) -> bool:
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            try:
                if self.items.get(timeout=left) == ENDED:
                    return True
            except queue.Empty:
                return False
        return False

    def close(self) -> None:
        # The reading thread is blocked in recv(): closing alone would not end the
        # connection while it is; a shutdown does, and the server sees the client go.
        network = self.response.extensions.get("network_stream")
        connected = network.get_extra_info("socket") if network is not None else None
        if connected is not None:
            with contextlib.suppress(OSError):
                connected.shutdown(socket.SHUT_RDWR)
        self.response.close()
        self.http.close()

    def __enter__(self) -> Stream:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def body(message: ServerSentEvent) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(message.data)
    return data


def sequences(messages: list[ServerSentEvent]) -> list[int]:
    return [int(message.id) for message in messages]
