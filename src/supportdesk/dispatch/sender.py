"""One POST of a signed webhook, and what came of it.

One aiohttp client per dispatcher, so connections to a receiver are kept alive between
deliveries. Redirects are never followed (a 3xx is a failure: following one would send the
body, and the server's own reach, wherever the receiver points). The whole attempt,
connecting and the answer included, is bounded by SUPPORTDESK_WEBHOOK_TIMEOUT_SECONDS; at
most PER_RECEIVER attempts to one host run at once, and an attempt waiting for one of those
places is not yet on the clock; one that cannot have its place by its `start_by` is not sent
at all (its lease would run out before its answer, and another dispatcher could send it too).

Why aiohttp: its response parser is C (llhttp) and its streams are asyncio's own. Measured
against the bench receiver, a POST cost the dispatcher 63 µs of CPU with it, against 377 µs
through httpcore's pool (pure-Python h11 over anyio), and a delivery's CPU is paid by the
serve process whose requests it follows.
"""

from __future__ import annotations

import asyncio
import math
import ssl
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import aiohttp
import certifi
from yarl import URL

from supportdesk.dispatch.transport import CheckedResolver, check_literal
from supportdesk.domain.webhooks.address_policy import UnsafeUrl, check_url_shape

# Enough of an answer to keep its connection reusable; a receiver has nothing to tell us.
MAX_ANSWER_BYTES = 64 * 1024
MAX_ERROR_LENGTH = 300
PER_RECEIVER = 4
PARSED_URLS_KEPT = 1024
KEEPALIVE_SECONDS = 30.0
# What an attempt sends, made when it is sent: its headers and its body.
Message = Callable[[], tuple[Mapping[str, str], bytes]]
# aiohttp adds these unless told not to; a webhook has no use for a compressed answer.
_SKIPPED_HEADERS = frozenset({"Accept", "Accept-Encoding"})


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
    """Sends to checked addresses only (see transport.py); `allow_private` is this
    process's SUPPORTDESK_WEBHOOK_ALLOW_PRIVATE, whatever it was when the URL was saved."""

    def __init__(self, timeout: float, allow_private: bool, max_connections: int) -> None:
        self._timeout = timeout
        self._allow_private = allow_private
        self._max_connections = max_connections
        self._session: aiohttp.ClientSession | None = None
        self._urls: dict[str, tuple[URL, str]] = {}
        self._receivers: dict[str, asyncio.Semaphore] = {}

    async def post(self, url: str, message: Message, start_by: float = math.inf) -> Reply | None:
        """POST what `message()` makes (headers, body), called once this attempt has its
        place at the receiver, so that a signature's timestamp is the moment it is sent.
        None when no place was free by `start_by` (time.monotonic()): nothing was sent.
        Never raises for what the receiver or the network does."""
        started = time.monotonic()
        try:
            target, host = self._checked(url)
            place = self._receiver(host)
            if not await _place_by(place, start_by):
                return None
            try:
                started = time.monotonic()
                headers, body = message()
                async with asyncio.timeout(self._timeout):
                    status, retry_after = await self._exchange(target, headers, body)
            finally:
                place.release()
        except Exception as error:  # every failure is a failed attempt, explained
            return Reply(None, _short(self._explain(error)), _elapsed_ms(started))
        return Reply(status, _failure(status), _elapsed_ms(started), retry_after)

    def _checked(self, url: str) -> tuple[URL, str]:
        # The URL's shape and an IP literal are checked by this process's policy, which
        # does not change while it runs: once per URL. A refused URL is not kept, and is
        # refused again at each attempt.
        parsed = self._urls.get(url)
        if parsed is None:
            shape = check_url_shape(url, self._allow_private)
            # An ASCII URL is sent as saved (yarl would rewrite its query's %-escapes);
            # another is encoded by yarl (IDNA, UTF-8 paths).
            target = URL(url, encoded=url.isascii())
            # The literal is judged as aiohttp will read the host: yarl turns digits of
            # other scripts (１２７.０.０.１) into ASCII ones, and aiohttp never resolves an
            # IP, so the resolver would not see it.
            check_literal(target.raw_host or "", self._allow_private)
            if len(self._urls) >= PARSED_URLS_KEPT:
                self._urls.clear()
            parsed = self._urls[url] = (target, f"{shape.host}:{shape.port}")
        return parsed

    def _receiver(self, host: str) -> asyncio.Semaphore:
        bound = self._receivers.get(host)
        if bound is None:
            if len(self._receivers) >= PARSED_URLS_KEPT:
                # Forget the idle ones; one forgotten while busy briefly allows a few more.
                self._receivers = {h: b for h, b in self._receivers.items() if b.locked()}
            bound = self._receivers[host] = asyncio.Semaphore(PER_RECEIVER)
        return bound

    def _client(self) -> aiohttp.ClientSession:
        if self._session is None:  # made in the running loop, at the first attempt
            connector = aiohttp.TCPConnector(
                limit=self._max_connections,
                limit_per_host=PER_RECEIVER,
                resolver=CheckedResolver(self._allow_private),
                use_dns_cache=False,  # every new connection resolves and checks again
                keepalive_timeout=KEEPALIVE_SECONDS,
                ssl=ssl.create_default_context(cafile=certifi.where()),
            )
            self._session = aiohttp.ClientSession(
                connector=connector,
                cookie_jar=aiohttp.DummyCookieJar(),  # a receiver's cookies are not kept
                auto_decompress=False,
                skip_auto_headers=_SKIPPED_HEADERS,
                timeout=aiohttp.ClientTimeout(total=None),  # post() bounds the attempt
            )
        return self._session

    async def _exchange(
        self, target: URL, headers: Mapping[str, str], body: bytes
    ) -> tuple[int, str | None]:
        answer = await self._client().post(
            target, data=body, headers=headers, allow_redirects=False
        )
        async with answer:
            received = 0
            async for chunk in answer.content.iter_any():
                received += len(chunk)
                if received > MAX_ANSWER_BYTES:
                    answer.close()  # the rest is dropped with the connection
                    break
            return answer.status, answer.headers.get("retry-after")

    def _explain(self, error: Exception) -> str:
        # Fixed words, plus the network's own message where it helps; never the URL, which
        # may carry a token of the receiver's.
        if isinstance(error, UnsafeUrl):
            return f"unsafe URL: {error.reason}"
        if isinstance(error, TimeoutError):
            return f"no answer within {self._timeout:g} s"
        if isinstance(error, aiohttp.ClientConnectorCertificateError):
            return "the receiver's TLS certificate was not accepted"
        if isinstance(error, aiohttp.ClientConnectorError):
            reason = error.os_error.strerror or str(error.os_error)
            return f"could not connect: {reason}" if reason else "could not connect"
        if isinstance(error, aiohttp.ServerDisconnectedError | aiohttp.ClientPayloadError):
            return "the receiver closed the connection without a valid answer"
        if isinstance(error, aiohttp.ClientOSError):  # e.g. reset while the request went
            reason = error.strerror or str(error)
            return f"the connection failed: {reason}" if reason else "the connection failed"
        if isinstance(error, aiohttp.ClientResponseError):
            return "the receiver's answer was not valid HTTP"
        if isinstance(error, aiohttp.InvalidURL | ValueError):
            return "the URL is not valid"
        return f"the request failed ({type(error).__name__})"

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()


async def _place_by(place: asyncio.Semaphore, start_by: float) -> bool:
    """Take one of a receiver's places, waiting until `start_by` at most."""
    if start_by == math.inf:
        await place.acquire()
        return True
    left = start_by - time.monotonic()
    if left <= 0:  # even a free place is too late now
        return False
    try:
        async with asyncio.timeout(left):
            await place.acquire()
    except TimeoutError:
        return False
    return True


def _elapsed_ms(started: float) -> int:
    return round((time.monotonic() - started) * 1000)
