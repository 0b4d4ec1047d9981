"""A webhook receiver for the tests: a real HTTP server on 127.0.0.1, in a thread, that
records every request and answers as the test told it to."""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import orjson

WAIT_SECONDS = 10.0


@dataclass(frozen=True)
class Received:
    path: str
    headers: dict[str, str]  # names in lower case
    body: bytes
    at: float  # time.monotonic() on arrival

    @property
    def event(self) -> dict[str, Any]:
        parsed: dict[str, Any] = orjson.loads(self.body)
        return parsed


@dataclass(frozen=True)
class Answer:
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds before answering: a slow receiver


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    # Dispatchers open dozens of connections at once; the default backlog of 5 would drop
    # their SYNs, and a connect retried after a second looks like a slow receiver.
    request_queue_size = 256


class Receiver:
    """Answers each request with the next scripted `Answer`, then 200 when none is left."""

    def __init__(self) -> None:
        self.received: list[Received] = []
        self._script: deque[Answer] = deque()
        self._changed = threading.Condition()
        self._server = _Server(("127.0.0.1", 0), self._handler())
        self.port = self._server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/hook?token=abc"
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()

    def answer(self, *answers: Answer) -> None:
        with self._changed:
            self._script.extend(answers)

    def wait_for(self, count: int, timeout: float = WAIT_SECONDS) -> list[Received]:
        """The first `count` requests, once they have arrived (or AssertionError)."""
        with self._changed:
            arrived = self._changed.wait_for(lambda: len(self.received) >= count, timeout)
            assert arrived, f"{len(self.received)} of {count} requests within {timeout} s"
            return self.received[:count]

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _arrived(self, request: Received) -> Answer:
        with self._changed:
            self.received.append(request)
            self._changed.notify_all()
            return self._script.popleft() if self._script else Answer()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        arrived: Callable[[Received], Answer] = self._arrived

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as real receivers do

            def do_POST(self) -> None:
                try:
                    length = int(self.headers.get("content-length") or 0)
                    body = self.rfile.read(length)
                    headers = {name.lower(): value for name, value in self.headers.items()}
                    answer = arrived(Received(self.path, headers, body, time.monotonic()))
                    if answer.delay:
                        time.sleep(answer.delay)  # the receiver being slow, not a test's wait
                    self.send_response(answer.status)
                    for name, value in answer.headers.items():
                        self.send_header(name, value)
                    # A 204 or 304 has no body (RFC 9110); the others say "ok".
                    body = b"" if answer.status in (204, 304) else b"ok"
                    if body:
                        self.send_header("content-length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except OSError:  # the dispatcher gave up on a slow answer and hung up
                    self.close_connection = True

            def log_message(self, format: str, *args: Any) -> None:
                pass

        return Handler
