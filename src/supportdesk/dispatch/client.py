"""One POST of a signed webhook with aiohttp, and what came of it.

The address policy (domain/webhooks/address_policy.py) sits where aiohttp looks up a name:
the connector's resolver returns only addresses the policy allows, and the connection is made
to one of exactly those, so a name that resolves elsewhere a moment later (DNS rebinding)
gains nothing. There is no DNS cache: a name is resolved and checked at every new
connection. aiohttp connects to an IP literal without asking the resolver, so a literal host
is checked here first. A kept-alive connection reaches the address checked when it opened.

Redirects are never followed (a 3xx is a failure: following one would send the body, and the
server's reach, wherever the receiver points). The whole attempt, connecting and the answer
included, is bounded by SUPPORTDESK_WEBHOOK_TIMEOUT_SECONDS. Only the status and
`Retry-After` are kept. A failure is told in fixed words, never the URL (which may carry a
receiver's token) nor the address or port connected to.
"""

from __future__ import annotations

import errno
import socket
import ssl
import time
from collections.abc import Mapping
from dataclasses import dataclass

import aiohttp
import certifi
from aiohttp.abc import AbstractResolver, ResolveResult
from yarl import URL

from supportdesk.domain.webhooks.address_policy import (
    Address,
    Unresolvable,
    UnsafeUrl,
    check_address,
    check_url_shape,
    ip_literal,
    resolve_checked,
)

# Enough of a success's answer to keep its connection for the next attempt; a longer one
# is not read, and its connection is closed instead.
MAX_ANSWER_BYTES = 64 * 1024
# An idle connection is kept this long; a receiver that closes sooner is seen closing.
KEEPALIVE_SECONDS = 15.0
# URLs whose shape (and IP literal) passed the policy, kept with what aiohttp is given.
CHECKED_URLS_KEPT = 1024


@dataclass(frozen=True, slots=True)
class Reply:
    """An attempt's outcome: the status when the receiver answered, and why it failed."""

    status: int | None
    error: str | None
    duration_ms: int
    retry_after: str | None = None
    timed_out: bool = False  # no answer within the time-out

    @property
    def succeeded(self) -> bool:
        return self.status is not None and 200 <= self.status < 300


class CheckedResolver(AbstractResolver):
    """The host's addresses, each allowed by the policy, or UnsafeUrl: aiohttp connects to
    one of exactly these."""

    def __init__(self, allow_private: bool) -> None:
        self._allow_private = allow_private

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        addresses = await resolve_checked(host, port, self._allow_private)
        found = [(address, _family(address)) for address in addresses]
        return [
            ResolveResult(
                hostname=host,
                host=str(address),
                port=port,
                family=found_family,
                proto=0,
                flags=socket.AI_NUMERICHOST,
            )
            for address, found_family in found
            if family in (socket.AF_UNSPEC, found_family)
        ]

    async def close(self) -> None:
        pass


class Client:
    """Sends to allowed addresses only; `allow_private` is this process's
    SUPPORTDESK_WEBHOOK_ALLOW_PRIVATE, whatever it was when the URL was saved. `tls`: the
    receivers' certificates are checked against certifi's roots unless given another."""

    def __init__(self, timeout: float, allow_private: bool, tls: ssl.SSLContext | None = None):
        self._timeout = timeout
        self._allow_private = allow_private
        self._tls = tls or ssl.create_default_context(cafile=certifi.where())
        self._session: aiohttp.ClientSession | None = None
        self._checked: dict[str, URL] = {}

    def _opened(self) -> aiohttp.ClientSession:
        # Made on first use, on the loop that sends: aiohttp binds a session to its loop.
        if self._session is None:
            connector = aiohttp.TCPConnector(
                resolver=CheckedResolver(self._allow_private),
                use_dns_cache=False,
                ssl=self._tls,
                limit=0,  # the dispatcher bounds its attempts itself (shares.py)
                keepalive_timeout=KEEPALIVE_SECONDS,
            )
            self._session = aiohttp.ClientSession(
                connector=connector,
                timeout=aiohttp.ClientTimeout(total=self._timeout),
                cookie_jar=aiohttp.DummyCookieJar(),
                auto_decompress=False,
            )
        return self._session

    async def post(self, url: str, headers: Mapping[str, str], body: bytes) -> Reply:
        """POST `body` to `url`; never raises for what the receiver or the network does."""
        started = time.monotonic()
        try:
            status, retry_after = await self._post(url, headers, body)
        except Exception as error:
            timed_out = isinstance(error, TimeoutError)
            return Reply(None, self._explain(error), _elapsed_ms(started), None, timed_out)
        return Reply(status, _failure(status), _elapsed_ms(started), retry_after)

    async def _post(
        self, url: str, headers: Mapping[str, str], body: bytes
    ) -> tuple[int, str | None]:
        target = self._checked.get(url)
        if target is None:
            target = self._check(url)
        session = self._opened()
        async with session.post(
            target, data=body, headers=headers, allow_redirects=False
        ) as answer:
            if 200 <= answer.status < 300:
                # Read so that the connection can carry the next attempt; the status stands
                # whatever comes of the body.
                try:
                    await answer.content.read(MAX_ANSWER_BYTES)
                except (aiohttp.ClientError, TimeoutError):
                    answer.close()
                if not answer.content.at_eof():
                    answer.close()
            else:
                answer.close()  # a 101 and its like: nothing more is read from it
            return answer.status, answer.headers.get("Retry-After")

    def _check(self, url: str) -> URL:
        """The URL as aiohttp is given it, once its shape (and its host, when an IP literal,
        which aiohttp connects to without the resolver) passed the policy. The verdict
        depends on the URL alone, so it is kept; a name is still resolved and checked at
        every new connection."""
        check_url_shape(url, self._allow_private)
        # An ASCII URL is sent as saved (yarl would rewrite its query's %-escapes); another
        # is encoded by yarl (IDNA host, UTF-8 path). The host is judged as yarl reads it:
        # digits of other scripts (１２７.０.０.１) become ASCII ones.
        target = URL(url, encoded=url.isascii())
        literal = ip_literal(target.raw_host or "")
        if literal is not None:
            check_address(literal, self._allow_private)
        if len(self._checked) >= CHECKED_URLS_KEPT:
            self._checked.clear()
        self._checked[url] = target
        return target

    def _explain(self, error: BaseException) -> str:
        if isinstance(error, Unresolvable):
            return "could not resolve host"
        if isinstance(error, UnsafeUrl):
            return f"unsafe URL: {error.reason}"
        if isinstance(error, TimeoutError):
            return f"timed out: no answer within {self._timeout:g} s"
        if isinstance(error, aiohttp.ClientConnectorCertificateError):
            return "TLS handshake failed: the certificate was not accepted"
        if isinstance(error, aiohttp.ClientSSLError | ssl.SSLError):
            return "TLS handshake failed"
        if isinstance(error, aiohttp.ClientConnectorDNSError):
            return "could not resolve host"
        if isinstance(error, aiohttp.ClientConnectorError):
            refused = error.os_error.errno == errno.ECONNREFUSED
            return "connection refused" if refused else "could not connect"
        if isinstance(error, aiohttp.ServerDisconnectedError | ConnectionResetError):
            return "connection reset: the receiver closed it without an answer"
        if isinstance(error, aiohttp.ClientResponseError | aiohttp.ClientPayloadError):
            return "the answer was not valid HTTP"
        if isinstance(error, aiohttp.InvalidURL | ValueError):
            return "the URL is not valid"
        if isinstance(error, OSError):
            return "the connection failed"
        return f"the request failed ({type(error).__name__})"

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None


def _failure(status: int) -> str | None:
    if 200 <= status < 300:
        return None
    if 300 <= status < 400:
        return f"HTTP {status}: redirects are not followed"
    return f"HTTP {status}"


def _family(address: Address) -> socket.AddressFamily:
    return socket.AF_INET6 if address.version == 6 else socket.AF_INET


def _elapsed_ms(started: float) -> int:
    return round((time.monotonic() - started) * 1000)
