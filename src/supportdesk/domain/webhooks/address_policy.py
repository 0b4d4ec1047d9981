"""Where a webhook may be sent (docs/webhooks.md).

A webhook URL is chosen by a caller, and the server fetches it: without these rules a key
with `webhooks:manage` could make the server call its own cloud metadata service or the
private network behind it. By default only `https` to public addresses; `allow_private`
(SUPPORTDESK_WEBHOOK_ALLOW_PRIVATE) opens `http`, loopback and private ranges for
self-hosted networks, but never link-local, multicast, unspecified or reserved addresses.

The URL is checked when it is saved, and its host resolved and checked again whenever the
dispatcher opens a connection (its HTTP client's resolver, dispatch/client.py): it connects
to exactly the addresses `resolve_checked` returned, so a name that resolves to something
else a moment later (DNS rebinding) gains nothing.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import SplitResult, urlsplit

Address = ipaddress.IPv4Address | ipaddress.IPv6Address

MAX_URL_LENGTH = 2048
_DEFAULT_PORTS = {"https": 443, "http": 80}
# "This network" (RFC 1122): only 0.0.0.0 is `is_unspecified`, yet Linux sends 0.x.y.z to itself.
_THIS_NETWORK = ipaddress.IPv4Network("0.0.0.0/8")
# The well-known NAT64 prefix (RFC 6052): a translator forwards it to the IPv4 in its last 32 bits.
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
# Cloud metadata services outside link-local: AWS's IPv6 one (in fc00::/7) and Alibaba's (in
# 100.64/10). Private ranges are allowed on self-hosted networks; these never are.
_METADATA = frozenset(map(ipaddress.ip_address, ["fd00:ec2::254", "100.100.100.200"]))
# Deprecated site-local (RFC 3879): some stacks still route it inside, yet Python calls it global.
_SITE_LOCAL = ipaddress.IPv6Network("fec0::/10")


class UnsafeUrl(Exception):
    """A URL a webhook may not use. The reason never repeats the URL, which may hold a token."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Unresolvable(UnsafeUrl):
    """The URL's host has no address (at this moment): nothing to check, nowhere to send."""

    def __init__(self) -> None:
        super().__init__("the URL's host does not resolve")


@dataclass(frozen=True, slots=True)
class Target:
    """What the dispatcher needs from a checked URL: whom to connect to and what to ask for."""

    scheme: str
    host: str
    port: int
    path_and_query: str


def check_url_shape(url: str, allow_private: bool) -> Target:
    """The URL's scheme, host and port, or UnsafeUrl; no network access."""
    if len(url) > MAX_URL_LENGTH:
        raise UnsafeUrl(f"the URL is longer than {MAX_URL_LENGTH} characters")
    # Spaces and control characters are parsed differently by different parsers; refuse them.
    if any(character <= " " or character == "\x7f" for character in url):
        raise UnsafeUrl("the URL contains spaces or control characters")
    try:
        parts = urlsplit(url)
    except ValueError:  # e.g. an unclosed or invalid [IPv6] host
        raise UnsafeUrl("the URL has no valid host") from None
    allowed = ("https", "http") if allow_private else ("https",)
    if parts.scheme not in allowed:
        raise UnsafeUrl(f"the URL must start with {' or '.join(s + '://' for s in allowed)}")
    if "@" in parts.netloc:
        raise UnsafeUrl("the URL must not contain a user name or password")
    if "\\" in parts.netloc or not parts.hostname:
        raise UnsafeUrl("the URL has no valid host")
    return Target(parts.scheme, parts.hostname, _port(parts), _path_and_query(parts))


def _port(parts: SplitResult) -> int:
    try:
        port = parts.port
    except ValueError:  # not a number, or out of range
        raise UnsafeUrl("the URL's port is not valid") from None
    if port == 0:
        raise UnsafeUrl("the URL's port is not valid")
    return port if port is not None else _DEFAULT_PORTS[parts.scheme]


def _path_and_query(parts: SplitResult) -> str:
    # The fragment stays with the caller: it is never sent to a server.
    path = parts.path or "/"
    return f"{path}?{parts.query}" if parts.query else path


def check_address(address: Address, allow_private: bool) -> None:
    """Refuse an address a webhook must not reach; None when it may.

    An IPv6 address that carries an IPv4 one (mapped, 6to4, NAT64, Teredo) is judged by that
    IPv4 address too, since that is where the packets end up.
    """
    if isinstance(address, ipaddress.IPv6Address) and address.scope_id is not None:
        # A zone id is ignored by the kernel for any but a link-local address (never allowed),
        # yet it makes the address compare unequal to the ones listed here.
        raise UnsafeUrl("the URL's host has an IPv6 zone id, which is never allowed")
    for judged in _addresses_behind(address):
        never = _never_allowed(judged)
        if never:
            raise UnsafeUrl(f"the URL's host is {never}, which is never allowed")
        if not allow_private and not _is_public(judged):
            raise UnsafeUrl("the URL's host is not a public address")


def _addresses_behind(address: Address) -> list[Address]:
    if isinstance(address, ipaddress.IPv4Address):
        return [address]
    # Mapped and NAT64 addresses are IPv4 addresses in IPv6 clothing: judge only the IPv4 one
    # (Python calls both ranges "reserved", which would refuse even a public destination).
    if address.ipv4_mapped is not None:
        return [address.ipv4_mapped]
    if address in _NAT64:
        return [ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)]
    behind: list[Address] = [address]
    if address.sixtofour is not None:
        behind.append(address.sixtofour)
    if address.teredo is not None:
        behind.extend(address.teredo)
    return behind


def _never_allowed(address: Address) -> str | None:
    # Link-local is where most cloud metadata services live (169.254.169.254).
    if address.is_link_local:
        return "a link-local address"
    if address in _METADATA:
        return "a cloud metadata service"
    if address.is_multicast:
        return "a multicast address"
    if address.is_unspecified or address in _THIS_NETWORK:
        return "an unspecified address"
    # ::1 lies in the reserved ::/8; loopback is judged with the private ranges instead.
    if address.is_reserved and not address.is_loopback:
        return "a reserved address"
    return None


def _is_public(address: Address) -> bool:
    # `is_global` is false for loopback, private, CGNAT (100.64/10), unique-local (fc00::/7)...
    return address.is_global and address not in _SITE_LOCAL


async def resolve_checked(host: str, port: int, allow_private: bool) -> list[Address]:
    """The host's addresses, each one allowed, or UnsafeUrl.

    A name is refused when ANY of its addresses is: a client may connect to any of them, and
    the dispatcher connects only to the addresses returned here.
    """
    literal = ip_literal(host)
    if literal is not None:
        check_address(literal, allow_private)
        return [literal]
    addresses = await _resolve(host, port)
    for address in addresses:
        check_address(address, allow_private)
    return addresses


def ip_literal(host: str) -> Address | None:
    """The host as an IP address when it is one (no DNS)."""
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


async def _resolve(host: str, port: int) -> list[Address]:
    loop = asyncio.get_running_loop()
    try:
        infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):  # gaierror is an OSError; UnicodeError from bad IDN labels
        raise Unresolvable() from None
    # Deduplicated in resolver order; the dispatcher tries them in that order.
    addresses = list(dict.fromkeys(ipaddress.ip_address(info[4][0]) for info in infos))
    if not addresses:
        raise Unresolvable()
    return addresses


async def check_url(url: str, allow_private: bool) -> Target:
    """The URL's shape and every address of its host, as when an endpoint is saved."""
    target = check_url_shape(url, allow_private)
    await resolve_checked(target.host, target.port, allow_private)
    return target
