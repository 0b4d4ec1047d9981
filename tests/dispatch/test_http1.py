"""The sender's HTTP/1.1 against receivers that answer in every way HTTP allows (and some it
does not): what counts as the answer, and when a connection is reused."""

from __future__ import annotations

import asyncio
import ssl
import sys
from collections.abc import Callable, Coroutine, Iterator
from typing import Any, TypeVar

import pytest
import trustme
import uvloop

from supportdesk.dispatch import http1
from supportdesk.dispatch.sender import Reply, Sender
from tests.dispatch.raw_receiver import Raw, RawReceiver, answer

T = TypeVar("T")
MESSAGE = ({"content-type": "application/json", "webhook-id": "evt_1"}, b'{"a":1}')


LOOPS: dict[str, Callable[[], asyncio.AbstractEventLoop]] = {
    "asyncio": asyncio.new_event_loop,
    "uvloop": uvloop.new_event_loop,  # what serve runs on: its transports are its own
}
loop_factory = LOOPS["asyncio"]


@pytest.fixture(autouse=True, params=sorted(LOOPS))
def each_loop(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every case on asyncio's own event loop and on uvloop's."""
    monkeypatch.setattr(sys.modules[__name__], "loop_factory", LOOPS[request.param])


@pytest.fixture
def raw() -> Iterator[RawReceiver]:
    receiver = RawReceiver()
    yield receiver
    receiver.close()


def posts(
    url: str | list[str],
    count: int = 1,
    *,
    timeout: float = 2.0,
    tls: ssl.SSLContext | None = None,
) -> list[Reply]:
    """`count` attempts (or one to each of several URLs) one after the other through one
    sender (so one pool)."""
    urls = [url] * count if isinstance(url, str) else url

    async def attempts() -> list[Reply]:
        sender = Sender(timeout, True, 4, tls)
        try:
            replies = []
            for each in urls:
                reply = await sender.post(each, lambda: MESSAGE)
                assert reply is not None
                replies.append(reply)
            return replies
        finally:
            await sender.aclose()

    return run(attempts())


def run(attempts: Coroutine[Any, Any, T]) -> T:
    """The attempts on this case's event loop (asyncio's or uvloop's)."""
    with asyncio.Runner(loop_factory=loop_factory) as runner:
        return runner.run(attempts)


def test_the_request_is_a_post_of_the_url_as_saved_with_our_headers(raw: RawReceiver) -> None:
    [reply] = posts(raw.url())

    assert reply.succeeded
    [request] = raw.wait_for(1)
    head, _, body = request.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    assert lines[0] == b"POST /hook?token=abc HTTP/1.1"
    assert f"Host: 127.0.0.1:{raw.port}".encode() in lines
    assert b"webhook-id: evt_1" in lines
    assert b"Content-Length: 7" in lines
    assert body == b'{"a":1}'


def test_one_connection_carries_consecutive_attempts(raw: RawReceiver) -> None:
    replies = posts(raw.url(), 3)

    assert [reply.status for reply in replies] == [204, 204, 204]
    assert raw.connections == 1


def at_once(url: str, count: int) -> list[Reply]:
    """`count` attempts started together through a sender that gives the receiver one place:
    each waits for the one before it."""

    async def attempts() -> list[Reply]:
        sender = Sender(2.0, True, 4, per_receiver=1)
        try:
            replies = await asyncio.gather(
                *(sender.post(url, lambda: MESSAGE) for _ in range(count))
            )
            return [reply for reply in replies if reply is not None]
        finally:
            await sender.aclose()

    return run(attempts())


def test_an_attempt_waiting_for_a_place_leaves_on_the_connection_that_answered(
    raw: RawReceiver,
) -> None:
    replies = at_once(raw.url(), 4)

    assert [reply.status for reply in replies] == [204] * 4
    assert raw.connections == 1
    assert len(raw.wait_for(4)) == 4


def test_an_attempt_waiting_for_a_place_gets_a_new_connection_when_the_answer_closed_it(
    raw: RawReceiver,
) -> None:
    raw.script(
        Raw(answer(200, "Connection: close\r\n"), close=True),
        Raw(answer(201), close=True),  # closes without saying so
    )

    replies = at_once(raw.url(), 3)

    assert [reply.status for reply in replies] == [200, 201, 204]
    assert raw.connections == 3


def test_an_attempt_that_followed_on_a_connection_reset_before_any_answer_is_sent_again(
    raw: RawReceiver,
) -> None:
    raw.script(Raw(answer(200)), Raw(b"", reset=True))

    replies = at_once(raw.url(), 2)

    assert [reply.status for reply in replies] == [200, 204]
    assert raw.connections == 2
    assert len(raw.wait_for(3)) == 3  # the second request twice


def test_a_receiver_that_closes_gets_a_new_connection(raw: RawReceiver) -> None:
    raw.script(
        Raw(answer(200, "Connection: close\r\n"), close=True),
        Raw(answer(200), close=True),  # closes without saying so
    )

    replies = posts(raw.url(), 3)

    assert [reply.status for reply in replies] == [200, 200, 204]
    assert raw.connections == 3


def test_a_kept_connection_reset_before_any_answer_is_sent_again_on_a_new_one(
    raw: RawReceiver,
) -> None:
    # What a receiver that closed a kept connection does when our request meets its closed
    # socket first: a reset, not an orderly close. Nothing was answered: sent once more.
    raw.script(Raw(answer(200)), Raw(b"", reset=True))

    replies = posts(raw.url(), 2)

    assert [reply.status for reply in replies] == [200, 204]
    assert raw.connections == 2


def test_a_chunked_answer_is_read_and_its_connection_kept(raw: RawReceiver) -> None:
    chunked = b"HTTP/1.1 202 Accepted\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"
    raw.script(Raw(chunked))

    replies = posts(raw.url(), 2)

    assert [reply.status for reply in replies] == [202, 204]
    assert raw.connections == 1


def test_an_answer_read_until_the_connection_closes_counts(raw: RawReceiver) -> None:
    raw.script(Raw(b"HTTP/1.0 200 OK\r\n\r\nthanks", close=True))

    [reply] = posts(raw.url())

    assert (reply.status, reply.error) == (200, None)


def test_interim_answers_are_skipped(raw: RawReceiver) -> None:
    raw.script(Raw(b"HTTP/1.1 100 Continue\r\nRetry-After: 9\r\n\r\n" + answer(503)))

    [reply] = posts(raw.url())

    assert (reply.status, reply.retry_after) == (503, None)


@pytest.mark.parametrize("upgrade", ["Upgrade: websocket\r\nConnection: Upgrade\r\n", ""])
def test_a_101_is_the_answer_and_ends_its_connection(raw: RawReceiver, upgrade: str) -> None:
    raw.script(Raw(f"HTTP/1.1 101 Switching Protocols\r\n{upgrade}\r\n".encode()))

    replies = posts(raw.url(), 2)

    assert [(reply.status, reply.error) for reply in replies] == [(101, "HTTP 101"), (204, None)]
    assert raw.connections == 2


def test_retry_after_is_read_from_the_answer(raw: RawReceiver) -> None:
    raw.script(Raw(answer(429, "retry-after:  120 \r\n")))

    [reply] = posts(raw.url())

    assert (reply.status, reply.retry_after) == (429, "120")


def test_a_long_answer_is_not_read_and_its_connection_not_kept(raw: RawReceiver) -> None:
    raw.script(Raw(answer(200, body=b"x" * (200 * 1024))))

    replies = posts(raw.url(), 2)

    assert [reply.status for reply in replies] == [200, 204]
    assert raw.connections == 2


def test_an_answer_that_is_not_http_fails(raw: RawReceiver) -> None:
    raw.script(Raw(b"SSH-2.0-OpenSSH_9.6\r\n", close=True))

    [reply] = posts(raw.url())

    assert (reply.status, reply.error) == (None, "the receiver's answer was not valid HTTP")


def test_a_connection_closed_before_the_answer_fails(raw: RawReceiver) -> None:
    raw.script(Raw(b"HTTP/1.1 20", close=True))

    [reply] = posts(raw.url())

    assert reply.status is None
    assert reply.error == "the receiver closed the connection without a valid answer"


def test_a_late_answer_is_never_taken_for_the_next_attempts(raw: RawReceiver) -> None:
    # The first attempt runs out of time; its answer arrives while the second waits.
    raw.script(Raw(answer(500), delay=0.6), Raw(answer(201)))

    replies = posts(raw.url(), 2, timeout=0.3)

    assert [reply.status for reply in replies] == [None, 201]
    assert raw.connections == 2


def test_a_second_answer_to_one_request_ends_the_connection(raw: RawReceiver) -> None:
    raw.script(Raw(answer(200) + answer(500)))

    replies = posts(raw.url(), 2)

    assert [reply.status for reply in replies] == [200, 204]
    assert raw.connections == 2


def test_an_endless_answer_head_fails_without_waiting_for_the_time_out(raw: RawReceiver) -> None:
    raw.script(Raw(b"HTTP/1.1 200 OK\r\nX-Pad: " + b"a" * (256 * 1024)))

    [reply] = posts(raw.url(), timeout=5.0)

    assert (reply.status, reply.error) == (None, "the receiver's answer was not valid HTTP")
    assert reply.duration_ms < 2_000


def test_endless_interim_answers_fail(raw: RawReceiver) -> None:
    raw.script(Raw(b"HTTP/1.1 102 Processing\r\n\r\n" * 20 + answer(200)))

    [reply] = posts(raw.url())

    assert (reply.status, reply.error) == (None, "the receiver's answer was not valid HTTP")


def test_one_receiver_is_one_pool_however_its_name_is_written(raw: RawReceiver) -> None:
    spellings = ("localhost", "LOCALHOST", "LocalHost")

    replies = posts([raw.url(host=host) for host in spellings])

    assert [reply.status for reply in replies] == [204, 204, 204]
    assert raw.connections == 1


def test_idle_connections_are_closed_also_where_nothing_more_is_sent(
    raw: RawReceiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = RawReceiver()
    monkeypatch.setattr(http1, "KEEPALIVE_SECONDS", 0.1)
    monkeypatch.setattr(http1, "SWEEP_SECONDS", 0.0)

    async def attempts() -> None:
        sender = Sender(2.0, True, 4)
        try:
            await sender.post(raw.url(), lambda: MESSAGE)
            await asyncio.sleep(0.3)
            await sender.post(other.url(), lambda: MESSAGE)  # sweeps the first receiver's
            await asyncio.sleep(0.1)
            assert raw.closed_connections == 1
        finally:
            await sender.aclose()

    try:
        run(attempts())
    finally:
        other.close()


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
        [reply] = posts(receiver.url("https", "localhost"), tls=_trusting(authority))

        assert (reply.status, reply.error) == (
            None,
            "the receiver's TLS certificate was not accepted",
        )
        assert receiver.requests == []
    finally:
        receiver.close()


def test_a_certificate_of_an_unknown_authority_is_refused(authority: trustme.CA) -> None:
    receiver = _tls_receiver(authority, "localhost")
    try:
        [reply] = posts(receiver.url("https", "localhost"))  # certifi's roots

        assert reply.error == "the receiver's TLS certificate was not accepted"
        assert receiver.requests == []
    finally:
        receiver.close()
