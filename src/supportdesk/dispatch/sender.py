"""One POST of a signed webhook, and what came of it.

One client per dispatcher, so connections to a receiver are kept alive between deliveries.
Redirects are never followed (a 3xx is a failure: following one would send the body, and
the server's own reach, wherever the receiver points). The whole attempt, connecting and
the answer included, is bounded by SUPPORTDESK_WEBHOOK_TIMEOUT_SECONDS.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from dataclasses import dataclass

import httpx

from supportdesk.dispatch.transport import CheckedTransport
from supportdesk.domain.webhooks.address_policy import UnsafeUrl, check_url_shape

# Enough of an answer to keep its connection reusable; a receiver has nothing to tell us.
MAX_ANSWER_BYTES = 64 * 1024
MAX_ERROR_LENGTH = 300


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
        self._client = httpx.AsyncClient(
            transport=CheckedTransport(allow_private, max_connections, max_connections),
            timeout=httpx.Timeout(timeout),
            follow_redirects=False,
            trust_env=False,
        )

    async def post(self, url: str, headers: Mapping[str, str], body: bytes) -> Reply:
        """POST `body`; never raises for what the receiver or the network does."""
        started = time.monotonic()
        try:
            check_url_shape(url, self._allow_private)
            async with asyncio.timeout(self._timeout):
                status, retry_after = await self._exchange(url, headers, body)
        except Exception as error:  # every failure is a failed attempt, explained
            return Reply(None, _short(self._explain(error)), _elapsed_ms(started))
        return Reply(status, _failure(status), _elapsed_ms(started), retry_after)

    async def _exchange(
        self, url: str, headers: Mapping[str, str], body: bytes
    ) -> tuple[int, str | None]:
        async with self._client.stream("POST", url, content=body, headers=headers) as answer:
            received = 0
            async for chunk in answer.aiter_raw():
                received += len(chunk)
                if received > MAX_ANSWER_BYTES:
                    break  # the rest is dropped with the connection
            return answer.status_code, answer.headers.get("retry-after")

    def _explain(self, error: Exception) -> str:
        # Fixed words, plus the network's own message where it helps; never the URL, which
        # may carry a token of the receiver's.
        if isinstance(error, UnsafeUrl):
            return f"unsafe URL: {error.reason}"
        if isinstance(error, TimeoutError | httpx.TimeoutException):
            return f"no answer within {self._timeout:g} s"
        if isinstance(error, httpx.ConnectError):
            return f"could not connect: {error}" if str(error) else "could not connect"
        if isinstance(error, httpx.RemoteProtocolError):
            return "the receiver closed the connection without a valid answer"
        if isinstance(error, httpx.InvalidURL | httpx.UnsupportedProtocol):
            return "the URL is not valid"
        return f"the request failed ({type(error).__name__})"

    async def aclose(self) -> None:
        await self._client.aclose()


def _elapsed_ms(started: float) -> int:
    return round((time.monotonic() - started) * 1000)
