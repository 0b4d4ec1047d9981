"""A webhook's HTTP/1.1: one POST at a time on each kept-alive connection to a receiver.

Why not a general HTTP client: a delivery's CPU is paid by the serve process whose requests
it follows, and a webhook needs little of one. Measured against the bench's receiver in
batches of 20, a POST cost 100 to 126 µs of CPU through aiohttp's session (most of it
Python building and checking a general request) and 22 µs here. What is not ours: the
answer is parsed by llhttp (httptools, uvicorn's parser, also aiohttp's), TLS is the
standard library's `ssl` over the event loop's transports. What is ours is the request's
head, made of the URL as saved (checked: no spaces or control characters) and our own
headers, and the pool of idle connections.

What a receiver may answer: any status (up to MAX_INTERIM_ANSWERS 1xx are skipped, but a
101, which ends the exchange and closes the connection), a body
of any framing (length, chunked, or until the connection closes), `Connection: close`. Only
the status and `Retry-After` are kept; a body past MAX_ANSWER_BYTES is not read: the status
stands, and the connection is closed instead of reused. Anything else (not HTTP, a head
longer than MAX_HEAD_BYTES, a connection closed before the head is complete) fails the
attempt, and the connection is never reused.
"""

from __future__ import annotations

import asyncio
import os
import ssl
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import cast

import httptools

from supportdesk.domain.webhooks.address_policy import Address

# Enough of an answer to keep its connection reusable; a receiver has nothing to tell us.
MAX_ANSWER_BYTES = 64 * 1024
# An answer's head (status line and headers) longer than this is not a receiver's answer;
# llhttp sets no limit of its own, and a header value is kept whole until it ends.
MAX_HEAD_BYTES = 16 * 1024
MAX_INTERIM_ANSWERS = 8
KEEPALIVE_SECONDS = 30.0
SWEEP_SECONDS = 5.0


class ReceiverClosed(Exception):
    """The receiver closed the connection before its answer's head was complete. `silent`:
    before a byte of it, as a server closing an idle kept connection does."""

    def __init__(self, silent: bool) -> None:
        super().__init__("closed before an answer" if silent else "closed within an answer")
        self.silent = silent


class CouldNotConnect(Exception):
    """No connection to the receiver; `reason` says why, in fixed words (no address)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def system_words(error: OSError) -> str:
    """The system's fixed words for a network failure ("connection refused"): the text of
    its errno, never the exception's own message, which asyncio writes with the address and
    port it tried (a receiver's network is not the API caller's to map)."""
    return os.strerror(error.errno).lower() if error.errno else "no reason given"


class InvalidAnswer(Exception):
    """What the receiver sent is not an HTTP/1.x answer."""


@dataclass(frozen=True, slots=True)
class Destination:
    """Where one URL's POSTs go: the connection's name and what each request starts with."""

    scheme: str
    host: str  # as connected to and verified (IDNA-encoded name, or an IP literal)
    port: int
    head: bytes  # b"POST <path?query> HTTP/1.1\r\nHost: ...\r\n"

    @property
    def pool_key(self) -> tuple[str, str, int]:
        return (self.scheme, self.host, self.port)

    @classmethod
    def of(cls, scheme: str, host: str, port: int, path_and_query: str) -> Destination:
        """`host` and `path_and_query` already encoded to ASCII (IDNA, %-escapes)."""
        host = host.lower()  # one name, one pool and one limit, however it is spelled
        if not (host + path_and_query).isascii() or any(
            character <= " " or character == "\x7f" for character in host + path_and_query
        ):
            raise ValueError("the URL has spaces, control or non-ASCII characters")
        authority = f"[{host}]" if ":" in host else host
        if port != {"https": 443, "http": 80}[scheme]:
            authority = f"{authority}:{port}"
        head = f"POST {path_and_query} HTTP/1.1\r\nHost: {authority}\r\n".encode("ascii")
        return cls(scheme, host, port, head)


def request_bytes(destination: Destination, headers: Mapping[str, str], body: bytes) -> bytes:
    """The whole request: the destination's head, our headers, the body's length, the body."""
    lines = []
    for name, value in headers.items():
        if "\r" in value or "\n" in value or "\r" in name or "\n" in name or ":" in name:
            raise ValueError("a header holds a line break, or its name a colon")
        lines.append(f"{name}: {value}\r\n")
    lines.append(f"Content-Length: {len(body)}\r\n\r\n")
    return destination.head + "".join(lines).encode("latin-1") + body


# What a connection tells of its exchange: the answer's status and Retry-After, or why
# there is none.
Outcome = tuple[int, str | None] | BaseException
Answered = Callable[["ReceiverConnection", Outcome], None]


class ReceiverConnection(asyncio.Protocol):
    """One connection to a receiver, carrying one exchange at a time. No task or future:
    the answer is told to a callback from the loop's own callbacks, so that the next
    request can leave on this connection in the same turn of the loop."""

    def __init__(self) -> None:
        self._parser = httptools.HttpResponseParser(self)
        self._transport: asyncio.Transport | None = None
        self._on_answer: Answered | None = None  # while an exchange is under way
        self._outcome: Outcome | None = None  # decided, not yet told
        self._timer: asyncio.TimerHandle | None = None
        self._status = 0  # the answer's, once its head is complete; 0 before
        self._retry_after: str | None = None
        self._received = 0
        self._heard = 0  # bytes of the answer so far
        self._interim = 0  # 1xx answers so far
        self._closed = False
        self._keep = True  # the last answer was complete and said keep-alive
        self.idle_since = 0.0

    @property
    def reusable(self) -> bool:
        """Open, and its last exchange ended with a complete answer that keeps it alive."""
        return (
            self._keep
            and not self._closed
            and self._on_answer is None
            and self._transport is not None
            and not self._transport.is_closing()
        )

    def send(self, request: bytes, deadline: float, on_answer: Answered) -> None:
        """Send `request`; `on_answer(self, outcome)` is called once, never within this
        call: with the answer's status and Retry-After, or with the error (TimeoutError at
        `deadline`, the loop's time). A failure or the time-out closes the connection, so
        a late answer is never taken for the next request's."""
        assert self._transport is not None and self._on_answer is None
        loop = asyncio.get_running_loop()
        self._on_answer, self._outcome = on_answer, None
        self._status, self._retry_after, self._received = 0, None, 0
        self._heard = self._interim = 0
        self._keep = False  # until the answer is complete and says keep-alive
        if self._closed or self._transport.is_closing():  # closed before this use
            self._decide(ReceiverClosed(silent=True))
            loop.call_soon(self._tell)
            return
        self._timer = loop.call_at(deadline, self._time_out)
        self._transport.write(request)

    def close(self) -> None:
        self._closed = True
        if self._transport is not None:
            self._transport.close()

    # asyncio's callbacks

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports are not asyncio's classes, only alike.
        self._transport = cast(asyncio.Transport, transport)

    def data_received(self, data: bytes) -> None:
        if self._on_answer is None:  # nothing was asked: a receiver out of step
            self.close()
            return
        self._heard += len(data)
        try:
            self._parser.feed_data(data)
        except httptools.HttpParserError as error:
            self._fail(InvalidAnswer(str(error)))
        except httptools.HttpParserUpgrade:  # not an HttpParserError: a 101, its answer told
            self.close()  # what follows is another protocol
        if self._outcome is None and not self._status and self._heard > MAX_HEAD_BYTES:
            self._fail(InvalidAnswer("the answer's head is too long"))
        elif self._heard > MAX_HEAD_BYTES + MAX_ANSWER_BYTES:  # chunk extensions, trailers
            self._succeed()
            self.close()
        # Told once the parser is done with this data: what the callback does next (send
        # the next request here) starts from a parser at rest.
        self._tell()

    def eof_received(self) -> bool:
        return False  # the transport closes itself; connection_lost follows

    def connection_lost(self, exc: Exception | None) -> None:
        self._closed = True
        if self._status:  # a body read until the connection closes, now complete
            self._succeed()
        elif exc is None or (not self._heard and isinstance(exc, ConnectionError)):
            # A reset before any answer is a close too: a receiver that closed a kept
            # connection resets it when our request meets its closed socket first.
            self._fail(ReceiverClosed(silent=not self._heard))
        else:
            self._fail(exc)
        self._tell()

    # httptools' callbacks

    def on_message_begin(self) -> None:
        if self._outcome is not None:
            self._keep = False  # a second answer to one request: out of step

    def on_header(self, name: bytes, value: bytes) -> None:
        if self._retry_after is None and name.lower() == b"retry-after":
            self._retry_after = value.decode("latin-1").strip()

    def on_headers_complete(self) -> None:
        status = self._parser.get_status_code()
        # 1xx are interim answers and the final one follows, but for 101 Switching Protocols:
        # the exchange ends there (the connection speaks another protocol after it), so it
        # is the answer, a failure like any status but 2xx.
        if status >= 200 or status == 101:
            self._status = status

    def on_body(self, body: bytes) -> None:
        self._received += len(body)
        if self._received > MAX_ANSWER_BYTES:
            self._succeed()
            self.close()  # the rest is dropped with the connection

    def on_message_complete(self) -> None:
        if not self._status:
            self._retry_after = None  # an interim answer's headers are not the answer's
            self._interim += 1
            if self._interim > MAX_INTERIM_ANSWERS:
                self._fail(InvalidAnswer("too many interim answers"))
            return
        if self._outcome is None:
            self._keep = self._parser.should_keep_alive()
            self._succeed()
        self._status = 0

    def _succeed(self) -> None:
        self._decide((self._status, self._retry_after))

    def _time_out(self) -> None:
        self._timer = None
        if self._on_answer is not None and self._outcome is None:  # no answer yet
            self._fail(TimeoutError())
            self._tell()

    def _fail(self, error: BaseException) -> None:
        self.close()
        self._decide(error)

    def _decide(self, outcome: Outcome) -> None:
        if self._on_answer is not None and self._outcome is None:
            self._outcome = outcome

    def _tell(self) -> None:
        on_answer, outcome = self._on_answer, self._outcome
        if on_answer is None or outcome is None:
            return
        self._on_answer = self._outcome = None
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        on_answer(self, outcome)


class ReceiverConnections:
    """Idle connections kept per receiver (scheme, name, port), up to `limit` in all, each
    for KEEPALIVE_SECONDS. Kept by name: a TLS connection verified for one name is never
    used for another name served from the same address."""

    def __init__(self, limit: int, tls: ssl.SSLContext) -> None:
        self._limit = limit
        self._tls = tls
        self._idle: dict[tuple[str, str, int], list[ReceiverConnection]] = {}
        self._kept = 0  # idle connections in all: counted, not summed at every give-back
        self._next_sweep = 0.0

    def idle(self, destination: Destination) -> ReceiverConnection | None:
        """A kept connection to the destination that is still open, or None."""
        kept = self._idle.get(destination.pool_key)
        fresh_since = time.monotonic() - KEEPALIVE_SECONDS
        found = None
        while kept and found is None:
            connection = kept.pop()  # the most recently used
            self._kept -= 1
            if connection.reusable and connection.idle_since >= fresh_since:
                found = connection
            else:
                connection.close()
        if kept is not None and not kept:
            del self._idle[destination.pool_key]
        return found

    async def open(
        self, destination: Destination, addresses: Iterable[Address]
    ) -> ReceiverConnection:
        """A new connection to the first of `addresses` (checked by the caller) that
        accepts one, or CouldNotConnect with the last one's failure."""
        loop = asyncio.get_running_loop()
        tls = self._tls if destination.scheme == "https" else None
        reason = "the host has no address"
        for address in addresses:
            try:
                _, connection = await loop.create_connection(
                    ReceiverConnection,
                    str(address),
                    destination.port,
                    ssl=tls,
                    server_hostname=destination.host if tls is not None else None,
                )
            except ssl.SSLCertVerificationError:
                # The receiver's certificate, not the address: another would say the same.
                raise CouldNotConnect("the receiver's TLS certificate was not accepted") from None
            except ssl.SSLError as error:
                # OpenSSL's fixed reason (WRONG_VERSION_NUMBER, …), when it gives one.
                reason = f": {error.reason}" if error.reason else ""
                raise CouldNotConnect(f"the TLS handshake failed{reason}") from None
            except OSError as error:
                reason = system_words(error)
                continue
            return connection
        raise CouldNotConnect(f"could not connect: {reason}")

    def give_back(self, destination: Destination, connection: ReceiverConnection) -> None:
        """Keep a connection whose last exchange left it reusable; close any other."""
        if not connection.reusable:
            connection.close()
            return
        connection.idle_since = time.monotonic()
        self._idle.setdefault(destination.pool_key, []).append(connection)
        self._kept += 1
        if self._kept > self._limit:
            self._close_oldest()
        if connection.idle_since >= self._next_sweep:
            self._sweep(connection.idle_since)

    def _sweep(self, moment: float) -> None:
        """Close what sat idle too long, also where nothing is sent any more."""
        self._next_sweep = moment + SWEEP_SECONDS
        fresh_since = moment - KEEPALIVE_SECONDS
        for key, kept in list(self._idle.items()):
            fresh = [c for c in kept if c.reusable and c.idle_since >= fresh_since]
            for connection in kept:
                if connection not in fresh:
                    connection.close()
            self._kept -= len(kept) - len(fresh)
            if fresh:
                self._idle[key] = fresh
            else:
                del self._idle[key]

    def _close_oldest(self) -> None:
        key, kept = min(self._idle.items(), key=lambda item: _oldest(item[1]))
        kept.pop(0).close()
        self._kept -= 1
        if not kept:
            del self._idle[key]

    def close(self) -> None:
        for kept in self._idle.values():
            for connection in kept:
                connection.close()
        self._idle.clear()
        self._kept = 0


def _oldest(kept: list[ReceiverConnection]) -> float:
    return kept[0].idle_since if kept else float("inf")
