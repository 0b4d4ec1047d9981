"""The network under the webhook sender: it connects only to addresses the policy allows.

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

from collections.abc import Iterable

import httpcore

from supportdesk.domain.webhooks.address_policy import resolve_checked


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
