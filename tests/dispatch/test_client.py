"""One attempt's HTTP through the dispatcher's client: what counts as an answer, redirects,
the time-out, TLS, and the address check at the moment of connecting."""

from __future__ import annotations

import asyncio
import socket
import ssl
from collections.abc import Iterator

import pytest
import trustme

from supportdesk.dispatch.client import Client, Reply
from tests.dispatch.raw_receiver import Raw, RawReceiver
from tests.dispatch.receiver import Answer, Receiver

HEADERS = {"content-type": "application/json", "webhook-id": "evt_1"}


def posts(
    url: str,
    count: int = 1,
    *,
    allow_private: bool = True,
    timeout: float = 1.0,
    tls: ssl.SSLContext | None = None,
) -> list[Reply]:
    """`count` attempts one after the other through one client (so one pool)."""

    async def attempts() -> list[Reply]:
        client = Client(timeout, allow_private, tls)
        try:
            return [await client.post(url, HEADERS, b'{"a":1}') for _ in range(count)]
        finally:
            await client.close()

    replies = asyncio.run(attempts())
    for reply in replies:
        # Fixed words: never the URL (its token), nor where the connection went.
        assert "token" not in (reply.error or "") and "127.0.0.1" not in (reply.error or "")
    return replies


def post(url: str, **options: object) -> Reply:
    [reply] = posts(url, **options)  # type: ignore[arg-type]
    return reply


@pytest.fixture
def raw() -> Iterator[RawReceiver]:
    receiver = RawReceiver()
    yield receiver
    receiver.close()


def test_a_2xx_is_a_success_and_the_url_is_sent_as_saved(receiver: Receiver) -> None:
    receiver.answer(Answer(204))

    reply = post(f"http://127.0.0.1:{receiver.port}/hook?sig=a%2Fb%7E&token=abc")

    assert (reply.status, reply.error, reply.succeeded) == (204, None, True)
    [request] = receiver.wait_for(1)
    assert request.path == "/hook?sig=a%2Fb%7E&token=abc"
    assert request.body == b'{"a":1}'
    assert request.headers["webhook-id"] == "evt_1"


def test_one_connection_carries_consecutive_attempts(raw: RawReceiver) -> None:
    replies = posts(raw.url(), 3)

    assert [reply.status for reply in replies] == [204] * 3
    assert raw.connections == 1


def test_an_answer_slower_than_the_time_out_is_a_failure(receiver: Receiver) -> None:
    receiver.answer(Answer(200, delay=1.5))

    reply = post(receiver.url, timeout=0.3)

    assert (reply.status, reply.error) == (None, "timed out: no answer within 0.3 s")
    assert 300 <= reply.duration_ms < 1_000


def test_a_redirect_is_not_followed(receiver: Receiver) -> None:
    target = Receiver()
    try:
        receiver.answer(Answer(307, {"location": target.url}))

        reply = post(receiver.url)

        assert (reply.status, reply.succeeded) == (307, False)
        assert reply.error == "HTTP 307: redirects are not followed"
        assert target.received == []
    finally:
        target.close()


def test_retry_after_is_passed_on(receiver: Receiver) -> None:
    receiver.answer(Answer(429, {"retry-after": "120"}))

    reply = post(receiver.url)

    assert (reply.status, reply.retry_after, reply.error) == (429, "120", "HTTP 429")


def test_switching_protocols_is_a_failed_attempt(raw: RawReceiver) -> None:
    raw.script(
        Raw(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\nConnection: Upgrade\r\n\r\n")
    )

    reply = post(raw.url())

    assert (reply.status, reply.error, reply.succeeded) == (101, "HTTP 101", False)
    assert reply.duration_ms < 500  # nothing more is waited for


def test_an_answer_that_is_not_http_is_a_failure(raw: RawReceiver) -> None:
    raw.script(Raw(b"SSH-2.0-OpenSSH_9.6\r\n\r\n", close=True))

    reply = post(raw.url())

    assert (reply.status, reply.error) == (None, "the answer was not valid HTTP")


def test_a_closed_port_is_a_refused_connection() -> None:
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]

    reply = post(f"http://127.0.0.1:{port}/hook?token=abc")

    assert (reply.status, reply.error) == (None, "connection refused")
    assert str(port) not in (reply.error or "")


def test_a_host_that_does_not_resolve_is_said_so() -> None:
    reply = post("http://receiver.invalid/hook?token=abc")

    assert (reply.status, reply.error) == (None, "could not resolve host")


def test_a_private_address_is_refused_when_connecting_unless_allowed(receiver: Receiver) -> None:
    # https passes the URL's shape check; the addresses of the name are judged at connect.
    url = f"https://localhost:{receiver.port}/hook?token=abc"

    reply = post(url, allow_private=False)

    assert reply.status is None
    assert reply.error == "unsafe URL: the URL's host is not a public address"
    assert receiver.received == []


def test_link_local_is_refused_even_when_private_addresses_are_allowed() -> None:
    reply = post("http://169.254.169.254/latest/meta-data?token=abc")

    assert (
        reply.error == "unsafe URL: the URL's host is a link-local address, which is never allowed"
    )


def test_plain_http_is_refused_unless_private_addresses_are_allowed(receiver: Receiver) -> None:
    reply = post(receiver.url, allow_private=False)

    assert reply.error is not None and reply.error.startswith("unsafe URL: the URL must start")
    assert receiver.received == []


def test_an_ip_written_in_other_digits_is_judged_as_the_address_it_is(receiver: Receiver) -> None:
    # yarl reads １２７.０.０.１ as 127.0.0.1, and aiohttp connects to a literal unresolved.
    reply = post(f"https://１２７.０.０.１:{receiver.port}/hook?token=abc", allow_private=False)

    assert reply.error == "unsafe URL: the URL's host is not a public address"
    assert receiver.received == []


def test_a_legacy_numeric_ipv4_host_is_never_connected_to(receiver: Receiver) -> None:
    reply = post(f"http://2130706433:{receiver.port}/hook?token=abc", allow_private=False)

    assert reply.status is None and reply.error is not None
    assert receiver.received == []


def test_an_ipv6_zone_id_is_never_connected_to(receiver: Receiver) -> None:
    # The kernel ignores the zone of a non-link-local address: this would reach ::1.
    reply = post(f"http://[::1%251]:{receiver.port}/hook?token=abc")

    assert reply.error == "unsafe URL: the URL's host has an IPv6 zone id, which is never allowed"
    assert receiver.received == []


@pytest.fixture(scope="module")
def authority() -> trustme.CA:
    return trustme.CA()


def _tls_receiver(authority: trustme.CA, *names: str) -> RawReceiver:
    server = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    authority.issue_cert(*names).configure_cert(server)
    return RawReceiver(tls=server)


def _trusting(authority: trustme.CA) -> ssl.SSLContext:
    client = ssl.create_default_context()
    authority.configure_trust(client)
    return client


def test_https_verifies_the_receivers_certificate_for_its_name(authority: trustme.CA) -> None:
    receiver = _tls_receiver(authority, "localhost")
    try:
        replies = posts(receiver.url("https", "localhost"), 2, tls=_trusting(authority))

        assert [reply.status for reply in replies] == [204, 204]
        assert receiver.connections == 1
        assert f"Host: localhost:{receiver.port}".encode() in receiver.wait_for(1)[0]
    finally:
        receiver.close()


def test_a_certificate_for_another_name_is_refused(authority: trustme.CA) -> None:
    receiver = _tls_receiver(authority, "receiver.example")
    try:
        reply = post(receiver.url("https", "localhost"), tls=_trusting(authority))

        assert (reply.status, reply.error) == (
            None,
            "TLS handshake failed: the certificate was not accepted",
        )
        assert receiver.requests == []
    finally:
        receiver.close()


def test_a_certificate_of_an_unknown_authority_is_refused(authority: trustme.CA) -> None:
    receiver = _tls_receiver(authority, "localhost")
    try:
        reply = post(receiver.url("https", "localhost"))  # certifi's roots

        assert reply.error == "TLS handshake failed: the certificate was not accepted"
        assert receiver.requests == []
    finally:
        receiver.close()
