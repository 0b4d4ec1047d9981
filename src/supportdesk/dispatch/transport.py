"""The network under the webhook sender: it connects only to addresses the policy allows.

A host name is resolved and every address checked (`resolve_checked`) whenever the client
opens a connection (no DNS cache), and the client connects to one of exactly those
addresses: a name that resolves to a private address a moment after the URL was saved (DNS
rebinding) is refused at connect time. An IP literal is never handed to a resolver, so the
sender checks it itself before each attempt (`check_literal`).

Why a resolver rather than the checked IP in the URL and the name in the Host header: the
pool keys its connections by the URL's host. With IPs in URLs, a TLS connection opened and
verified for one name would be reused for another name served from the same address,
skipping that name's certificate check. Keyed by name, each connection carries the name it
was verified for, and reusing it reaches the address checked when it was opened. The request
URL stays as saved, so SNI and Host are the real name.
"""

from __future__ import annotations

import socket

from aiohttp.abc import AbstractResolver, ResolveResult

from supportdesk.domain.webhooks.address_policy import (
    Address,
    check_address,
    ip_literal,
    resolve_checked,
)


class CheckedResolver(AbstractResolver):
    """Resolves a name to its addresses, each one allowed, or raises UnsafeUrl."""

    def __init__(self, allow_private: bool) -> None:
        self._allow_private = allow_private

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        addresses = await resolve_checked(host, port, self._allow_private)
        return [_result(host, address, port) for address in addresses]

    async def close(self) -> None:
        return None


def _result(host: str, address: Address, port: int) -> ResolveResult:
    family = socket.AF_INET6 if address.version == 6 else socket.AF_INET
    return {
        "hostname": host,
        "host": str(address),
        "port": port,
        "family": family,
        "proto": 0,
        "flags": socket.AI_NUMERICHOST,
    }


def check_literal(host: str, allow_private: bool) -> None:
    """Refuse a URL whose host is an IP literal the policy does not allow (UnsafeUrl)."""
    literal = ip_literal(host)
    if literal is not None:
        check_address(literal, allow_private)
