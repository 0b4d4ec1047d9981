"""One POST of a signed webhook, and what came of it.

One connection pool per dispatcher, so connections to a receiver are kept alive between
deliveries. Redirects are never followed (a 3xx is a failure: following one would send the
body, and the server's own reach, wherever the receiver points). The whole attempt,
connecting and the answer included, is bounded by SUPPORTDESK_WEBHOOK_TIMEOUT_SECONDS.

Requests go to httpcore's pool (the transport under httpx) directly: httpx's client layer
(URL merging, cookies, auth and redirect flows, event hooks) did nothing for a signed POST
and cost about 40% of its CPU. At most PER_RECEIVER attempts to one host run at once: the
pool's bookkeeping grows with the requests queued in it (measured: 270 µs per request alone,
1.4 ms with 32 queued), and a receiver gains little from more parallel connections.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from dataclasses import dataclass

import httpcore
import httpx

from supportdesk.dispatch.transport import CheckedNetwork
from supportdesk.domain.webhooks.address_policy import UnsafeUrl, check_url_shape

# Enough of an answer to keep its connection reusable; a receiver has nothing to tell us.
MAX_ANSWER_BYTES = 64 * 1024
MAX_ERROR_LENGTH = 300
PER_RECEIVER = 4
PARSED_URLS_KEPT = 1024


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
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=httpx.create_ssl_context(),  # httpx's own: certifi's roots
            max_connections=max_connections,
            max_keepalive_connections=max_connections,
            keepalive_expiry=30,
            network_backend=CheckedNetwork(allow_private),
        )
        self._urls: dict[str, tuple[httpcore.URL, bytes]] = {}
        self._receivers: dict[bytes, asyncio.Semaphore] = {}

    async def post(self, url: str, headers: Mapping[str, str], body: bytes) -> Reply:
        """POST `body`; never raises for what the receiver or the network does."""
        started = time.monotonic()
        try:
            check_url_shape(url, self._allow_private)
            target, host = self._parsed(url)
            async with self._receiver(host), asyncio.timeout(self._timeout):
                status, retry_after = await self._exchange(target, host, headers, body)
        except Exception as error:  # every failure is a failed attempt, explained
            return Reply(None, _short(self._explain(error)), _elapsed_ms(started))
        return Reply(status, _failure(status), _elapsed_ms(started), retry_after)

    def _parsed(self, url: str) -> tuple[httpcore.URL, bytes]:
        # httpx's parser (IDNA, IPv6 brackets) once per URL; the Host header is its netloc.
        parsed = self._urls.get(url)
        if parsed is None:
            whole = httpx.URL(url)
            target = httpcore.URL(
                scheme=whole.raw_scheme, host=whole.raw_host, port=whole.port, target=whole.raw_path
            )
            if len(self._urls) >= PARSED_URLS_KEPT:
                self._urls.clear()
            parsed = self._urls[url] = (target, whole.netloc)
        return parsed

    def _receiver(self, host: bytes) -> asyncio.Semaphore:
        bound = self._receivers.get(host)
        if bound is None:
            if len(self._receivers) >= PARSED_URLS_KEPT:
                # Forget the idle ones; one forgotten while busy briefly allows a few more.
                self._receivers = {h: b for h, b in self._receivers.items() if b.locked()}
            bound = self._receivers[host] = asyncio.Semaphore(PER_RECEIVER)
        return bound

    async def _exchange(
        self, target: httpcore.URL, host: bytes, headers: Mapping[str, str], body: bytes
    ) -> tuple[int, str | None]:
        raw = [(b"host", host), (b"content-length", str(len(body)).encode())]
        raw += [(name.encode(), value.encode()) for name, value in headers.items()]
        async with self._pool.stream("POST", target, headers=raw, content=body) as answer:
            received = 0
            async for chunk in answer.aiter_stream():
                received += len(chunk)
                if received > MAX_ANSWER_BYTES:
                    break  # the rest is dropped with the connection
            return answer.status, _header(answer.headers, b"retry-after")

    def _explain(self, error: Exception) -> str:
        # Fixed words, plus the network's own message where it helps; never the URL, which
        # may carry a token of the receiver's.
        if isinstance(error, UnsafeUrl):
            return f"unsafe URL: {error.reason}"
        if isinstance(error, TimeoutError | httpcore.TimeoutException):
            return f"no answer within {self._timeout:g} s"
        if isinstance(error, httpcore.ConnectError):
            return f"could not connect: {error}" if str(error) else "could not connect"
        if isinstance(error, httpcore.RemoteProtocolError):
            return "the receiver closed the connection without a valid answer"
        if isinstance(error, httpx.InvalidURL | httpcore.UnsupportedProtocol):
            return "the URL is not valid"
        return f"the request failed ({type(error).__name__})"

    async def aclose(self) -> None:
        await self._pool.aclose()


def _header(headers: list[tuple[bytes, bytes]], wanted: bytes) -> str | None:
    for name, value in headers:
        if name.lower() == wanted:
            return value.decode("latin-1")
    return None


def _elapsed_ms(started: float) -> int:
    return round((time.monotonic() - started) * 1000)
