"""One POST of a signed webhook, and what came of it.

One pool of kept-alive connections per dispatcher (http1.py), so connections to a receiver
are reused between deliveries. Redirects are never followed (a 3xx is a failure: following
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
import math
import ssl
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import certifi
from yarl import URL

from supportdesk.dispatch.http1 import (
    CouldNotConnect,
    Destination,
    InvalidAnswer,
    ReceiverClosed,
    ReceiverConnection,
    ReceiverConnections,
    request_bytes,
)
from supportdesk.domain.webhooks.address_policy import (
    UnsafeUrl,
    check_url_shape,
    resolve_checked,
)

MAX_ERROR_LENGTH = 300
PER_RECEIVER = 4
PARSED_URLS_KEPT = 1024
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


def _failure(status: int) -> str | None:
    if 200 <= status < 300:
        return None
    if 300 <= status < 400:
        return f"HTTP {status}: redirects are not followed"
    return f"HTTP {status}"


def _short(text: str) -> str:
    return text if len(text) <= MAX_ERROR_LENGTH else text[: MAX_ERROR_LENGTH - 1] + "…"


class Sender:
    """Sends to checked addresses only; `allow_private` is this process's
    SUPPORTDESK_WEBHOOK_ALLOW_PRIVATE, whatever it was when the URL was saved. `tls`: the
    receivers' certificates are checked against certifi's roots unless given another."""

    def __init__(
        self,
        timeout: float,
        allow_private: bool,
        max_connections: int,
        tls: ssl.SSLContext | None = None,
    ) -> None:
        self._timeout = timeout
        self._allow_private = allow_private
        self._connections = ReceiverConnections(
            max_connections, tls or ssl.create_default_context(cafile=certifi.where())
        )
        self._destinations: dict[str, Destination] = {}
        self._receivers: dict[tuple[str, str, int], asyncio.Semaphore] = {}

    async def post(self, url: str, message: Message, start_by: float = math.inf) -> Reply | None:
        """POST what `message()` makes (headers, body), called once this attempt has its
        place at the receiver, so that a signature's timestamp is the moment it is sent.
        None when no place was free by `start_by` (time.monotonic()): nothing was sent.
        Never raises for what the receiver or the network does."""
        started = time.monotonic()
        try:
            destination = self._destination(url)
            place = self._receiver(destination)
            if not await _place_by(place, start_by):
                return None
            try:
                started = time.monotonic()
                headers, body = message()
                request = request_bytes(destination, headers, body)
                deadline = asyncio.get_running_loop().time() + self._timeout
                status, retry_after = await self._exchange(destination, request, deadline)
            finally:
                place.release()
        except Exception as error:  # every failure is a failed attempt, explained
            return Reply(None, _short(self._explain(error)), _elapsed_ms(started))
        return Reply(status, _failure(status), _elapsed_ms(started), retry_after)

    def _destination(self, url: str) -> Destination:
        # The URL's shape is checked by this process's policy, which does not change while
        # it runs: once per URL (a refused URL is not kept, and is refused again at each
        # attempt). Its host's addresses, an IP literal's included, are checked at every
        # new connection (_exchange).
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

    def _receiver(self, destination: Destination) -> asyncio.Semaphore:
        key = destination.pool_key
        bound = self._receivers.get(key)
        if bound is None:
            if len(self._receivers) >= PARSED_URLS_KEPT:
                # Forget the idle ones; one forgotten while busy briefly allows a few more.
                self._receivers = {k: b for k, b in self._receivers.items() if b.locked()}
            bound = self._receivers[key] = asyncio.Semaphore(PER_RECEIVER)
        return bound

    async def _exchange(
        self, destination: Destination, request: bytes, deadline: float
    ) -> tuple[int, str | None]:
        """The answer to `request`, by `deadline` (the loop's time) or TimeoutError."""
        kept = self._connections.idle(destination)
        if kept is not None:
            try:
                return await self._over(kept, destination, request, deadline)
            except ReceiverClosed as closed:
                if not closed.silent:
                    raise
                # Closed by the receiver as it sat idle, before a byte of an answer: the
                # request goes once more, on a new connection (webhooks are at least once).
        async with asyncio.timeout_at(deadline):
            # Resolved and checked now, at every new connection: no rebinding.
            addresses = await resolve_checked(
                destination.host, destination.port, self._allow_private
            )
            connection = await self._connections.open(destination, addresses)
        return await self._over(connection, destination, request, deadline)

    async def _over(
        self,
        connection: ReceiverConnection,
        destination: Destination,
        request: bytes,
        deadline: float,
    ) -> tuple[int, str | None]:
        try:
            return await connection.exchange(request, deadline)
        finally:
            self._connections.give_back(destination, connection)

    def _explain(self, error: Exception) -> str:
        # Fixed words, plus the network's own message where it helps; never the URL, which
        # may carry a token of the receiver's.
        if isinstance(error, UnsafeUrl):
            return f"unsafe URL: {error.reason}"
        if isinstance(error, TimeoutError):
            return f"no answer within {self._timeout:g} s"
        if isinstance(error, CouldNotConnect):
            return error.reason
        if isinstance(error, ReceiverClosed):
            return "the receiver closed the connection without a valid answer"
        if isinstance(error, OSError):  # e.g. reset while the request went
            reason = error.strerror or str(error)
            return f"the connection failed: {reason}" if reason else "the connection failed"
        if isinstance(error, InvalidAnswer):
            return "the receiver's answer was not valid HTTP"
        if isinstance(error, ValueError):
            return "the URL is not valid"
        return f"the request failed ({type(error).__name__})"

    async def aclose(self) -> None:
        self._connections.close()


async def _place_by(place: asyncio.Semaphore, start_by: float) -> bool:
    """Take one of a receiver's places, waiting until `start_by` at most."""
    if start_by == math.inf:
        await place.acquire()
        return True
    left = start_by - time.monotonic()
    if left <= 0:  # even a free place is too late now
        return False
    if not place.locked():  # free: taken at once, without a timer
        await place.acquire()
        return True
    try:
        async with asyncio.timeout(left):
            await place.acquire()
    except TimeoutError:
        return False
    return True


def _elapsed_ms(started: float) -> int:
    return round((time.monotonic() - started) * 1000)
