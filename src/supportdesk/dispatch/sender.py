"""One POST of a signed webhook, and what came of it.

One pool of kept-alive connections per dispatcher (http1.py), so connections to a receiver
are reused between deliveries: when an answer comes and another attempt to that receiver
waits, it leaves on the same connection from the callback that read the answer, with no
task or future between them. Redirects are never followed (a 3xx is a failure: following
one would send the body, and the server's own reach, wherever the receiver points). The
whole attempt, connecting and the answer included, is bounded by
SUPPORTDESK_WEBHOOK_TIMEOUT_SECONDS; at most PER_RECEIVER attempts to one receiver run at once,
and an attempt waiting for one of those places is not yet on the clock; one that cannot have
its place by its `start_by` is not sent at all (its lease would run out before its answer,
and another dispatcher could send it too).

Every new connection goes to an address checked by the policy: a name is resolved and each
of its addresses checked at that moment (no DNS cache, so no rebinding), an IP literal is
checked as it is. A kept connection reaches the address checked when it was opened.
"""

from __future__ import annotations

import asyncio
import logging
import math
import ssl
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import certifi
from yarl import URL

from supportdesk.dispatch.http1 import (
    CouldNotConnect,
    Destination,
    InvalidAnswer,
    Outcome,
    ReceiverClosed,
    ReceiverConnection,
    ReceiverConnections,
    request_bytes,
    system_words,
)
from supportdesk.domain.webhooks.address_policy import (
    UnsafeUrl,
    check_url_shape,
    resolve_checked,
)

logger = logging.getLogger("supportdesk.dispatch")

MAX_ERROR_LENGTH = 300
# A place carries one attempt per turn of the loop (its answer is read at the next turn's
# look at the sockets), and a serve process busy with as many requests as it takes turns
# some 15 to 20 times a second, each turn answering some 30 requests, each with a delivery
# to make: the places must be at least as many as those, or deliveries fall behind the
# load. A receiver that answers at once needs few of them at other times.
PER_RECEIVER = 64
PARSED_URLS_KEPT = 1024
# How often attempts that wait for a place are checked against their start_by.
SWEEP_SECONDS = 0.05
# What an attempt sends, made when it is sent: its headers and its body.
Message = Callable[[], tuple[Mapping[str, str], bytes]]


@dataclass(frozen=True, slots=True)
class Reply:
    """An attempt's outcome: the status when the receiver answered, and why it failed."""

    status: int | None
    error: str | None
    duration_ms: int
    retry_after: str | None = None

    @property
    def succeeded(self) -> bool:
        return self.status is not None and 200 <= self.status < 300


OnReply = Callable[[Reply | None], None]


def _failure(status: int) -> str | None:
    if 200 <= status < 300:
        return None
    if 300 <= status < 400:
        return f"HTTP {status}: redirects are not followed"
    return f"HTTP {status}"


def _short(text: str) -> str:
    return text if len(text) <= MAX_ERROR_LENGTH else text[: MAX_ERROR_LENGTH - 1] + "…"


@dataclass(slots=True)
class _Attempt:
    """One POST: where it goes, what it sends once it has its place, who hears of it."""

    destination: Destination
    message: Message
    start_by: float
    on_reply: OnReply
    started: float = 0.0  # time.monotonic() when it had its place
    request: bytes = b""
    deadline: float = 0.0  # the loop's time
    on_kept: bool = False  # sent on a connection that carried an earlier request


@dataclass(slots=True)
class _Line:
    """One receiver's places: how many are taken, and the attempts waiting for one."""

    taken: int = 0
    waiting: deque[_Attempt] = field(default_factory=deque)


class Sender:
    """Sends to checked addresses only; `allow_private` is this process's
    SUPPORTDESK_WEBHOOK_ALLOW_PRIVATE, whatever it was when the URL was saved. `tls`: the
    receivers' certificates are checked against certifi's roots unless given another.
    `per_receiver`: the attempts one receiver gets at once."""

    def __init__(
        self,
        timeout: float,
        allow_private: bool,
        max_connections: int,
        tls: ssl.SSLContext | None = None,
        per_receiver: int = PER_RECEIVER,
    ) -> None:
        self._timeout = timeout
        self._allow_private = allow_private
        self._per_receiver = per_receiver
        self._connections = ReceiverConnections(
            max_connections, tls or ssl.create_default_context(cafile=certifi.where())
        )
        self._destinations: dict[str, Destination] = {}
        self._lines: dict[tuple[str, str, int], _Line] = {}
        self._busy: dict[ReceiverConnection, _Attempt] = {}
        self._opening: set[asyncio.Task[None]] = set()
        self._sweeper: asyncio.TimerHandle | None = None
        self._closed = False

    def send(
        self, url: str, message: Message, on_reply: OnReply, start_by: float = math.inf
    ) -> None:
        """POST what `message()` makes (headers, body), called once this attempt has its
        place at the receiver, so that a signature's timestamp is the moment it is sent.
        `on_reply(reply)` is called once, on this loop, perhaps within this call: with None
        when no place was free by `start_by` (time.monotonic()) and nothing was sent. Never
        raises for what the receiver or the network does."""
        try:
            destination = self._destination(url)
        except Exception as error:  # a URL this process's policy refuses
            _tell(on_reply, Reply(None, _short(self._explain(error)), 0))
            return
        if start_by <= time.monotonic():  # even a free place is too late now
            _tell(on_reply, None)
            return
        attempt = _Attempt(destination, message, start_by, on_reply)
        line = self._lines.get(destination.pool_key)
        if line is None:
            line = self._lines[destination.pool_key] = _Line()
        if line.taken < self._per_receiver:
            line.taken += 1
            self._begin(attempt)
        else:
            line.waiting.append(attempt)
            self._sweep_soon()

    async def post(self, url: str, message: Message, start_by: float = math.inf) -> Reply | None:
        """`send`, awaiting its reply."""
        replied: asyncio.Future[Reply | None] = asyncio.get_running_loop().create_future()

        def on_reply(reply: Reply | None) -> None:
            if not replied.done():  # its waiter may have been cancelled
                replied.set_result(reply)

        self.send(url, message, on_reply, start_by)
        return await replied

    def _begin(self, attempt: _Attempt, kept: ReceiverConnection | None = None) -> None:
        """Start an attempt that has a place: on `kept` (free, to its receiver), on an idle
        connection, or on a new one."""
        attempt.started = time.monotonic()
        try:
            headers, body = attempt.message()
            attempt.request = request_bytes(attempt.destination, headers, body)
        except Exception as error:
            self._replied(attempt, kept, error)  # a connection handed over goes on
            return
        attempt.deadline = asyncio.get_running_loop().time() + self._timeout
        connection = kept or self._connections.idle(attempt.destination)
        if connection is None:
            self._open(attempt)
        else:
            attempt.on_kept = True
            self._busy[connection] = attempt
            connection.send(attempt.request, attempt.deadline, self._answered)

    def _open(self, attempt: _Attempt) -> None:
        attempt.on_kept = False
        opening = asyncio.create_task(self._open_then_send(attempt))
        self._opening.add(opening)
        opening.add_done_callback(self._opening.discard)

    async def _open_then_send(self, attempt: _Attempt) -> None:
        destination = attempt.destination
        try:
            async with asyncio.timeout_at(attempt.deadline):
                # Resolved and checked now, at every new connection: no rebinding.
                addresses = await resolve_checked(
                    destination.host, destination.port, self._allow_private
                )
                connection = await self._connections.open(destination, addresses)
        except asyncio.CancelledError:
            raise
        except Exception as error:
            self._replied(attempt, None, error)
            return
        if self._closed:
            connection.close()
            return
        self._busy[connection] = attempt
        connection.send(attempt.request, attempt.deadline, self._answered)

    def _answered(self, connection: ReceiverConnection, outcome: Outcome) -> None:
        attempt = self._busy.pop(connection, None)
        if attempt is None or self._closed:
            connection.close()
            return
        if isinstance(outcome, ReceiverClosed) and outcome.silent and attempt.on_kept:
            # Closed by the receiver as it sat idle, before a byte of an answer: the request
            # goes once more, on a new connection (webhooks are at least once).
            self._open(attempt)
            return
        self._replied(attempt, connection, outcome)

    def _replied(
        self,
        attempt: _Attempt,
        connection: ReceiverConnection | None,
        outcome: Outcome | Exception,
    ) -> None:
        """Tell the attempt's outcome, and hand its place (and its connection, when it may
        carry another request) to the next attempt waiting for this receiver."""
        if self._closed:
            if connection is not None:
                connection.close()
            return
        if isinstance(outcome, BaseException):
            reply = Reply(None, _short(self._explain(outcome)), _elapsed_ms(attempt.started))
        else:
            status, retry_after = outcome
            reply = Reply(status, _failure(status), _elapsed_ms(attempt.started), retry_after)
        key = attempt.destination.pool_key
        line = self._lines[key]
        following = self._next_waiting(line)
        if following is None:
            line.taken -= 1
            if not line.taken:
                del self._lines[key]
            if connection is not None:
                self._connections.give_back(attempt.destination, connection)
        elif connection is not None and connection.reusable:
            self._begin(following, connection)
        else:
            if connection is not None:
                connection.close()
            self._begin(following)
        _tell(attempt.on_reply, reply)

    def _next_waiting(self, line: _Line) -> _Attempt | None:
        moment = time.monotonic()
        while line.waiting:
            attempt = line.waiting.popleft()
            if attempt.start_by > moment:
                return attempt
            _tell(attempt.on_reply, None)
        return None

    def _sweep_soon(self) -> None:
        if self._sweeper is None:
            loop = asyncio.get_running_loop()
            self._sweeper = loop.call_later(SWEEP_SECONDS, self._sweep)

    def _sweep(self) -> None:
        """Tell the attempts still waiting past their start_by that they are not sent."""
        self._sweeper = None
        moment = time.monotonic()
        late: list[_Attempt] = []
        for line in self._lines.values():
            if any(attempt.start_by <= moment for attempt in line.waiting):
                late.extend(a for a in line.waiting if a.start_by <= moment)
                line.waiting = deque(a for a in line.waiting if a.start_by > moment)
        if any(line.waiting for line in self._lines.values()):
            self._sweep_soon()
        for attempt in late:
            _tell(attempt.on_reply, None)

    def _destination(self, url: str) -> Destination:
        # The URL's shape is checked by this process's policy, which does not change while
        # it runs: once per URL (a refused URL is not kept, and is refused again at each
        # attempt). Its host's addresses, an IP literal's included, are checked at every
        # new connection (_open_then_send).
        destination = self._destinations.get(url)
        if destination is None:
            shape = check_url_shape(url, self._allow_private)
            # An ASCII URL is sent as saved (yarl would rewrite its query's %-escapes);
            # another is encoded by yarl (IDNA host, UTF-8 path). The host is judged as
            # yarl reads it: digits of other scripts (１２７.０.０.１) become ASCII ones.
            parsed = URL(url, encoded=url.isascii())
            destination = Destination.of(
                shape.scheme, parsed.raw_host or "", shape.port, parsed.raw_path_qs
            )
            if len(self._destinations) >= PARSED_URLS_KEPT:
                self._destinations.clear()
            self._destinations[url] = destination
        return destination

    def _explain(self, error: BaseException) -> str:
        # Fixed words, and the system's words for an errno; never the URL, which may carry
        # a token of the receiver's, nor the address and port connected to.
        if isinstance(error, UnsafeUrl):
            return f"unsafe URL: {error.reason}"
        if isinstance(error, TimeoutError):
            return f"no answer within {self._timeout:g} s"
        if isinstance(error, CouldNotConnect):
            return error.reason
        if isinstance(error, ReceiverClosed):
            return "the receiver closed the connection without a valid answer"
        if isinstance(error, ssl.SSLError):  # its errno is OpenSSL's, not the system's
            return "the TLS connection failed"
        if isinstance(error, OSError):  # e.g. reset while the request went
            return f"the connection failed: {system_words(error)}"
        if isinstance(error, InvalidAnswer):
            return "the receiver's answer was not valid HTTP"
        if isinstance(error, ValueError):
            return "the URL is not valid"
        return f"the request failed ({type(error).__name__})"

    def abandon(self) -> None:
        """Send nothing more: what is under way or waiting is dropped untold, and its
        connections closed."""
        self._closed = True
        if self._sweeper is not None:
            self._sweeper.cancel()
            self._sweeper = None
        for line in self._lines.values():
            line.waiting.clear()
        for opening in self._opening:
            opening.cancel()
        for connection in list(self._busy):
            connection.close()
        self._busy.clear()

    async def aclose(self) -> None:
        """`abandon`, then close the idle connections too."""
        self.abandon()
        await asyncio.gather(*self._opening, return_exceptions=True)
        self._connections.close()


def _tell(on_reply: OnReply, reply: Reply | None) -> None:
    # What a callback raises is logged here, not let into the connection's callbacks (which
    # may be carrying the next attempt by then).
    try:
        on_reply(reply)
    except Exception:
        logger.exception("A webhook attempt's reply could not be taken.")


def _elapsed_ms(started: float) -> int:
    return round((time.monotonic() - started) * 1000)
