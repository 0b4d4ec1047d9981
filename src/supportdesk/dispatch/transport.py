"""An httpx transport that connects only to addresses the webhook policy allows.

The host is resolved and every address checked (`resolve_checked`) when a connection is
opened, and the socket goes to one of exactly those addresses: a name that resolves to a
private address a moment after the URL was saved (DNS rebinding) is refused at connect time.

Why here, under the connection pool, rather than by putting the checked IP in the URL and
the name in the Host header: the pool keys its connections by the URL's host. With IPs in
URLs, a TLS connection opened and verified for one name would be reused for another name
served from the same address, skipping that name's certificate check. Keyed by name, each
connection carries the name it was verified for, and reusing it reaches the address checked
when it was opened. The request URL stays as saved, so SNI and Host are the real name.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Iterable

import httpcore
import httpx

from supportdesk.domain.webhooks.address_policy import resolve_checked

# httpcore's errors as httpx's (what the rest of the dispatcher catches), most specific first.
_ERRORS: tuple[tuple[type[Exception], type[httpx.TransportError]], ...] = (
    (httpcore.ConnectTimeout, httpx.ConnectTimeout),
    (httpcore.ReadTimeout, httpx.ReadTimeout),
    (httpcore.WriteTimeout, httpx.WriteTimeout),
    (httpcore.PoolTimeout, httpx.PoolTimeout),
    (httpcore.ConnectError, httpx.ConnectError),
    (httpcore.ReadError, httpx.ReadError),
    (httpcore.WriteError, httpx.WriteError),
    (httpcore.RemoteProtocolError, httpx.RemoteProtocolError),
    (httpcore.LocalProtocolError, httpx.LocalProtocolError),
    (httpcore.UnsupportedProtocol, httpx.UnsupportedProtocol),
)


def _as_httpx(error: Exception) -> Exception:
    for theirs, ours in _ERRORS:
        if isinstance(error, theirs):
            return ours(str(error))
    return error


class CheckedNetwork(httpcore.AsyncNetworkBackend):
    """Opens TCP connections to checked addresses of the host, in the resolver's order."""

    def __init__(self, allow_private: bool) -> None:
        self._allow_private = allow_private
        self._network = httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,  # noqa: ASYNC109 (httpcore's interface)
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        addresses = await resolve_checked(host, port, self._allow_private)  # or UnsafeUrl
        failure: Exception | None = None
        for address in addresses:
            try:
                return await self._network.connect_tcp(
                    str(address), port, timeout, local_address, socket_options
                )
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as error:
                failure = error
        assert failure is not None  # resolve_checked returns at least one address
        raise failure

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,  # noqa: ASYNC109 (httpcore's interface)
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        raise httpcore.ConnectError("webhooks are never sent over a Unix socket")

    async def sleep(self, seconds: float) -> None:
        await self._network.sleep(seconds)


class _Body(httpx.AsyncByteStream):
    def __init__(self, stream: AsyncIterable[bytes]) -> None:
        self._stream = stream

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            async for part in self._stream:
                yield part
        except Exception as error:
            raise _as_httpx(error) from None

    async def aclose(self) -> None:
        closing = getattr(self._stream, "aclose", None)
        if closing is not None:
            await closing()


class CheckedTransport(httpx.AsyncBaseTransport):
    """httpx's request and response over an httpcore pool on `CheckedNetwork`; no proxies
    (an environment's HTTP_PROXY would otherwise carry requests past the checks)."""

    def __init__(self, allow_private: bool, max_connections: int, keepalive: int) -> None:
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=httpx.create_ssl_context(),  # httpx's own: certifi's roots
            max_connections=max_connections,
            max_keepalive_connections=keepalive,
            keepalive_expiry=30,
            network_backend=CheckedNetwork(allow_private),
        )

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        assert isinstance(request.stream, httpx.AsyncByteStream)
        wanted = httpcore.Request(
            method=request.method,
            url=httpcore.URL(
                scheme=request.url.raw_scheme,
                host=request.url.raw_host,
                port=request.url.port,
                target=request.url.raw_path,
            ),
            headers=request.headers.raw,
            content=request.stream,
            extensions=request.extensions,
        )
        try:
            answer = await self._pool.handle_async_request(wanted)
        except Exception as error:
            raise _as_httpx(error) from None
        assert isinstance(answer.stream, AsyncIterable)
        return httpx.Response(
            status_code=answer.status,
            headers=answer.headers,
            stream=_Body(answer.stream),
            extensions=answer.extensions,
        )

    async def aclose(self) -> None:
        await self._pool.aclose()
