"""A receiver that answers with exactly the bytes a test gives it: for answers no proper
HTTP server sends (interim 1xx, a body until the connection closes, not HTTP at all), and to
count the connections a sender opens. A real socket server in a thread, optionally TLS."""

from __future__ import annotations

import socket
import ssl
import struct
import threading
import time
from collections import deque
from dataclasses import dataclass

WAIT_SECONDS = 10.0


@dataclass(frozen=True)
class Raw:
    """What to do with one request: send `data` after `delay` seconds, then close the
    connection when `close` (else wait for the next request on it); `reset` closes it with
    a reset (RST) instead of an orderly close."""

    data: bytes
    close: bool = False
    delay: float = 0.0
    reset: bool = False


def answer(status: int, headers: str = "", body: bytes = b"") -> bytes:
    """A well-formed answer with a Content-Length; `headers` as lines ending in CRLF."""
    head = f"HTTP/1.1 {status} X\r\n{headers}Content-Length: {len(body)}\r\n\r\n"
    return head.encode("latin-1") + body


class RawReceiver:
    """Answers each request with the next scripted `Raw`, then 204 when none is left."""

    def __init__(self, tls: ssl.SSLContext | None = None) -> None:
        self.requests: list[bytes] = []  # each request's head and body, as received
        self.connections = 0
        self.closed_connections = 0  # by the sender, seen as the end of its requests
        self._script: deque[Raw] = deque()
        self._changed = threading.Condition()
        self._tls = tls
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self._open: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def url(self, scheme: str = "http", host: str = "127.0.0.1") -> str:
        return f"{scheme}://{host}:{self.port}/hook?token=abc"

    def script(self, *answers: Raw) -> None:
        with self._changed:
            self._script.extend(answers)

    def wait_for(self, count: int) -> list[bytes]:
        with self._changed:
            arrived = self._changed.wait_for(lambda: len(self.requests) >= count, WAIT_SECONDS)
            assert arrived, f"{len(self.requests)} of {count} requests"
            return self.requests[:count]

    def close(self) -> None:
        self._listener.close()
        for connection in self._open:
            connection.close()

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self._listener.accept()
            except OSError:
                return  # closed
            with self._changed:
                self.connections += 1
            threading.Thread(target=self._serve, args=(connection,), daemon=True).start()

    def _serve(self, connection: socket.socket) -> None:
        try:
            if self._tls is not None:
                connection = self._tls.wrap_socket(connection, server_side=True)
            self._open.append(connection)
            pending = b""
            while True:
                request, pending = _read_request(connection, pending)
                if request is None:
                    with self._changed:
                        self.closed_connections += 1
                    return
                with self._changed:
                    self.requests.append(request)
                    self._changed.notify_all()
                    raw = self._script.popleft() if self._script else Raw(answer(204))
                time.sleep(raw.delay)
                connection.sendall(raw.data)
                if raw.reset:  # a zero linger: close() sends RST
                    connection.setsockopt(
                        socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0)
                    )
                    return
                if raw.close:
                    return
        except (OSError, ssl.SSLError):
            return  # the client went away, or refused our certificate
        finally:
            connection.close()


def _read_request(connection: socket.socket, pending: bytes) -> tuple[bytes | None, bytes]:
    """One request with a Content-Length body, and what was read past it."""
    while b"\r\n\r\n" not in pending:
        chunk = connection.recv(65536)
        if not chunk:
            return None, b""
        pending += chunk
    head, _, rest = pending.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    while len(rest) < length:
        chunk = connection.recv(65536)
        if not chunk:
            return None, b""
        rest += chunk
    return head + b"\r\n\r\n" + rest[:length], rest[length:]
