"""Where a webhook may be sent (CONTRACT §11 "Safety (SSRF)"); no test needs the internet."""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from supportdesk.domain.webhooks.address_policy import (
    Target,
    UnsafeUrl,
    check_address,
    check_url,
    check_url_shape,
    resolve_checked,
)

PUBLIC = "https://93.184.215.14/"

REFUSED_BY_DEFAULT = {
    "cloud-metadata": "http://169.254.169.254/latest/meta-data",
    "ipv6-loopback": "http://[::1]/",
    "private-10": "http://10.0.0.1/",
    "localhost-name": "https://localhost/",
    "ftp": "ftp://example.com/",
    "mapped-metadata": "http://[::ffff:169.254.169.254]/",
    "unspecified": "https://0.0.0.0/",
    "ipv6-link-local": "https://[fe80::1]/",
    "multicast": "https://224.0.0.1/",
    "cgnat": "https://100.64.0.1/",
    "private-192-168": "https://192.168.1.1/",
    "unique-local": "https://[fd12::1]/",
    "mapped-loopback": "https://[::ffff:127.0.0.1]/",
    "decimal-loopback": "https://2130706433/",
    "octal-loopback": "https://0177.0.0.1/",
    "plain-http-to-public": "http://93.184.215.14/",
    # The same hosts over https: refused for their address, not only for the scheme.
    "https-ipv4-loopback": "https://127.0.0.1/",
    "https-ipv6-loopback": "https://[::1]/",
    "https-private-10": "https://10.0.0.1/",
}

ALLOWED_WHEN_PRIVATE = {
    "ipv4-loopback": "http://127.0.0.1:8080/hook",
    "private-10": "http://10.0.0.1/",
    "ipv6-loopback": "http://[::1]/",
    "localhost-name": "https://localhost/",
    "plain-http-to-public": "http://93.184.215.14/",
    "mapped-loopback": "http://[::ffff:127.0.0.1]/",
    "cgnat": "http://100.64.0.1/",
}

REFUSED_ALWAYS = {
    "cloud-metadata": "http://169.254.169.254/latest/meta-data",
    "mapped-metadata": "http://[::ffff:169.254.169.254]/",
    "nat64-metadata": "http://[64:ff9b::169.254.169.254]/",
    "6to4-metadata": "http://[2002:a9fe:a9fe::1]/",
    "aws-ipv6-metadata": "http://[fd00:ec2::254]/",
    # A zone id makes the address compare unequal to the listed one; the kernel ignores it.
    "aws-ipv6-metadata-with-zone": "http://[fd00:ec2::254%251]/",
    "loopback-with-zone": "http://[::1%25lo]/",
    "ipv6-link-local": "https://[fe80::1]/",
    "multicast": "https://224.0.0.1/",
    "ipv6-multicast": "https://[ff02::1]/",
    "unspecified": "https://0.0.0.0/",
    "ipv6-unspecified": "https://[::]/",
    "this-network": "https://0.1.2.3/",
    "reserved": "https://240.0.0.1/",
    "broadcast": "https://255.255.255.255/",
    "ftp": "ftp://example.com/",
}

MALFORMED = {
    "javascript": "javascript:alert(1)",
    "no-scheme": "//example.com/",
    "no-host": "https:///path",
    "port-only": "https://:443/",
    "userinfo": "https://user:pass@example.com/",
    "user-only": "https://user@example.com/",
    "backslash-host": "https://10.0.0.1\\.example.com/",
    "space": "https://example.com/a b",
    "newline": "https://example.com/\r\nHost: x",
    "port-zero": "https://example.com:0/",
    "port-too-big": "https://example.com:65536/",
    "port-not-a-number": "https://example.com:https/",
    "unclosed-ipv6": "https://[::1/",
    "too-long": "https://example.com/" + "a" * 2048,
}


def ids(table: dict[str, str]) -> dict[str, Any]:
    return {"argvalues": list(table.values()), "ids": list(table)}


@pytest.mark.parametrize("url", **ids(REFUSED_BY_DEFAULT))
def test_refused_by_default(url: str) -> None:
    with pytest.raises(UnsafeUrl):
        asyncio.run(check_url(url, allow_private=False))


@pytest.mark.parametrize("url", **ids(ALLOWED_WHEN_PRIVATE))
def test_allowed_when_private_networks_are(url: str) -> None:
    target = asyncio.run(check_url(url, allow_private=True))

    assert target.scheme in {"http", "https"}


@pytest.mark.parametrize("url", **ids(REFUSED_ALWAYS))
@pytest.mark.parametrize("allow_private", [False, True], ids=["default", "allow-private"])
def test_refused_even_when_private_networks_are_allowed(url: str, allow_private: bool) -> None:
    with pytest.raises(UnsafeUrl):
        asyncio.run(check_url(url, allow_private=allow_private))


@pytest.mark.parametrize("url", **ids(MALFORMED))
@pytest.mark.parametrize("allow_private", [False, True], ids=["default", "allow-private"])
def test_malformed_urls_are_refused_without_resolving(url: str, allow_private: bool) -> None:
    with pytest.raises(UnsafeUrl):
        check_url_shape(url, allow_private=allow_private)


@pytest.mark.parametrize(
    "url",
    [PUBLIC, "https://[2606:4700:4700::1111]/", "https://[64:ff9b::93.184.215.14]/"],
    ids=["ipv4", "ipv6", "nat64-of-public"],
)
def test_a_public_literal_passes(url: str) -> None:
    asyncio.run(check_url(url, allow_private=False))


def test_the_target_is_what_the_dispatcher_connects_to() -> None:
    target = check_url_shape("HTTPS://Hooks.Example.com:8443/in?a=1&b=2#frag", allow_private=False)

    assert target == Target("https", "hooks.example.com", 8443, "/in?a=1&b=2")
    assert check_url_shape("https://[::1]", allow_private=True) == Target("https", "::1", 443, "/")
    assert check_url_shape("http://x.test", allow_private=True).port == 80


def test_the_reason_never_repeats_the_url() -> None:
    with pytest.raises(UnsafeUrl) as refused:
        asyncio.run(check_url("https://10.0.0.1/hook?token=s3cret", allow_private=False))

    assert "s3cret" not in str(refused.value)
    assert refused.value.reason == str(refused.value)


@pytest.mark.parametrize(
    ("address", "allow_private", "allowed"),
    [
        ("127.0.0.1", False, False),
        ("127.0.0.1", True, True),
        ("::ffff:10.1.2.3", True, True),
        ("::ffff:169.254.0.1", True, False),
        ("64:ff9b::93.184.215.14", False, True),
        ("64:ff9b::10.0.0.1", False, False),
        ("fec0::1", False, False),
        ("100.100.100.200", True, False),
        ("8.8.8.8", False, True),
    ],
    ids=[
        "loopback",
        "loopback-allowed",
        "mapped-private-allowed",
        "mapped-link-local",
        "nat64-of-public",
        "nat64-of-private",
        "site-local",
        "alibaba-metadata",
        "public",
    ],
)
def test_check_address(address: str, allow_private: bool, allowed: bool) -> None:
    ip = ipaddress.ip_address(address)
    if allowed:
        check_address(ip, allow_private)
    else:
        with pytest.raises(UnsafeUrl):
            check_address(ip, allow_private)


def fake_resolver(
    answer: list[str] | OSError,
) -> Callable[..., Awaitable[list[tuple[Any, ...]]]]:
    async def getaddrinfo(host: str, port: int, **_: Any) -> list[tuple[Any, ...]]:
        if isinstance(answer, OSError):
            raise answer
        return [
            (socket.AF_INET6 if ":" in a else socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, port))
            for a in answer
        ]

    return getaddrinfo


def resolve_with(answer: list[str] | OSError, allow_private: bool = False) -> list[str]:
    async def main() -> list[str]:
        asyncio.get_running_loop().getaddrinfo = fake_resolver(answer)  # type: ignore[method-assign]
        return [str(a) for a in await resolve_checked("hooks.example.test", 443, allow_private)]

    return asyncio.run(main())


def test_a_name_is_refused_when_any_of_its_addresses_is() -> None:
    with pytest.raises(UnsafeUrl):
        resolve_with(["93.184.215.14", "10.0.0.1"])
    with pytest.raises(UnsafeUrl):
        resolve_with(["10.0.0.1", "169.254.169.254"], allow_private=True)


def test_a_name_answers_every_address_once_in_resolver_order() -> None:
    addresses = resolve_with(["93.184.215.14", "2606:4700::1", "93.184.215.14"])

    assert addresses == ["93.184.215.14", "2606:4700::1"]


@pytest.mark.parametrize(
    "answer",
    [socket.gaierror(socket.EAI_NONAME, "Name or service not known"), []],
    ids=["unknown-name", "no-addresses"],
)
def test_a_name_that_does_not_resolve_is_refused(answer: list[str] | OSError) -> None:
    with pytest.raises(UnsafeUrl, match="does not resolve"):
        resolve_with(answer)


def test_a_literal_is_checked_without_resolving() -> None:
    async def main() -> list[str]:
        asyncio.get_running_loop().getaddrinfo = fake_resolver(OSError("must not resolve"))  # type: ignore[method-assign]
        return [str(a) for a in await resolve_checked("93.184.215.14", 443, False)]

    assert asyncio.run(main()) == ["93.184.215.14"]
