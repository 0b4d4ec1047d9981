"""One attempt's HTTP: time-out, redirects, and the address check at connect time."""

from __future__ import annotations

import asyncio
import socket
import time

from supportdesk.dispatch.sender import Reply, Sender
from tests.dispatch.receiver import Answer, Receiver


def post(url: str, *, allow_private: bool = True, timeout: float = 1.0) -> Reply:
    async def attempt() -> Reply:
        sender = Sender(timeout, allow_private, 4)
        try:
            return await sender.post(url, _message)
        finally:
            await sender.aclose()

    reply = asyncio.run(attempt())
    assert reply is not None
    assert "token" not in (reply.error or "")  # the URL's secrets never reach the record
    return reply


def test_a_2xx_is_a_success(receiver: Receiver) -> None:
    receiver.answer(Answer(204))

    reply = post(receiver.url)

    assert (reply.status, reply.error, reply.succeeded) == (204, None, True)
    assert receiver.wait_for(1)[0].body == b"{}"


def test_an_answer_slower_than_the_time_out_is_a_failure(receiver: Receiver) -> None:
    receiver.answer(Answer(200, delay=1.5))

    reply = post(receiver.url, timeout=0.3)

    assert (reply.status, reply.error) == (None, "no answer within 0.3 s")
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


def test_a_private_address_is_refused_when_connecting_unless_allowed(receiver: Receiver) -> None:
    # https passes the URL's shape check; the address is judged when connecting.
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


def test_a_closed_port_is_a_connection_failure() -> None:
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]

    reply = post(f"http://127.0.0.1:{port}/hook?token=abc")

    assert reply.status is None
    assert reply.error is not None and reply.error.startswith("could not connect")


def test_one_receiver_gets_at_most_four_attempts_at_once(receiver: Receiver) -> None:
    receiver.answer(*[Answer(200, delay=0.4)] * 8)

    async def eight() -> list[Reply | None]:
        sender = Sender(5.0, True, 32, per_receiver=4)
        try:
            made: list[float] = []

            def message() -> tuple[dict[str, str], bytes]:
                made.append(time.monotonic())
                return {"content-type": "application/json"}, b"{}"

            replies = await asyncio.gather(*(sender.post(receiver.url, message) for _ in range(8)))
            made_late.extend(made)
            return replies
        finally:
            await sender.aclose()

    made_late: list[float] = []
    replies = asyncio.run(eight())

    assert [(reply.status, reply.error) for reply in replies] == [(200, None)] * 8
    # Each message is made when its attempt gets a place: the fifth after a first answer.
    assert made_late[4] - made_late[0] >= 0.35
    arrivals = receiver.wait_for(8)
    # The fifth starts only once one of the first four has had its (slow) answer.
    assert arrivals[4].at - arrivals[0].at >= 0.35
    assert {request.headers["host"] for request in arrivals} == {f"127.0.0.1:{receiver.port}"}


def test_an_attempt_without_a_place_by_its_start_by_is_not_sent(receiver: Receiver) -> None:
    receiver.answer(*[Answer(200, delay=0.5)] * 4)

    async def four_then_one() -> tuple[list[Reply | None], Reply | None, float]:
        sender = Sender(5.0, True, 32, per_receiver=4)
        try:
            slow = [asyncio.create_task(sender.post(receiver.url, _message)) for _ in range(4)]
            await asyncio.sleep(0.05)  # the four hold every place at the receiver
            asked = time.monotonic()
            late = await sender.post(receiver.url, _never_made, asked + 0.2)
            waited = time.monotonic() - asked
            return await asyncio.gather(*slow), late, waited
        finally:
            await sender.aclose()

    slow, late, waited = asyncio.run(four_then_one())

    assert [reply.status if reply else None for reply in slow] == [200] * 4
    assert late is None
    assert 0.15 <= waited < 0.45  # gave up at its start_by, before any place came free
    assert len(receiver.wait_for(4)) == 4
    time.sleep(0.1)
    assert len(receiver.received) == 4


def test_an_ip_written_in_other_digits_is_judged_as_the_address_it_is(receiver: Receiver) -> None:
    # yarl reads １２７.０.０.１ as 127.0.0.1: the host is judged as it is connected to.
    reply = post(f"https://１２７.０.０.１:{receiver.port}/hook?token=abc", allow_private=False)

    assert reply.error == "unsafe URL: the URL's host is not a public address"
    assert receiver.received == []


def test_a_legacy_numeric_ipv4_host_is_never_connected_to(receiver: Receiver) -> None:
    reply = post(f"http://2130706433:{receiver.port}/hook?token=abc", allow_private=False)

    assert reply.status is None and reply.error is not None
    assert receiver.received == []


def test_the_url_is_sent_as_saved(receiver: Receiver) -> None:
    reply = post(f"http://127.0.0.1:{receiver.port}/hook?sig=a%2Fb%7E&token=abc")

    assert reply.succeeded
    assert receiver.wait_for(1)[0].path == "/hook?sig=a%2Fb%7E&token=abc"


def test_an_ipv6_zone_id_is_never_connected_to(receiver: Receiver) -> None:
    # The kernel ignores the zone of a non-link-local address: this would reach ::1.
    reply = post(f"http://[::1%251]:{receiver.port}/hook?token=abc", allow_private=True)

    assert reply.error == "unsafe URL: the URL's host has an IPv6 zone id, which is never allowed"
    assert receiver.received == []


def test_an_attempt_past_its_start_by_is_not_sent_even_to_a_free_place(receiver: Receiver) -> None:
    async def late() -> Reply | None:
        sender = Sender(5.0, True, 32)
        try:
            return await sender.post(receiver.url, _never_made, time.monotonic() - 0.01)
        finally:
            await sender.aclose()

    assert asyncio.run(late()) is None
    time.sleep(0.1)
    assert receiver.received == []


def test_what_waits_or_is_under_way_when_the_sender_closes_is_neither_told_nor_sent(
    receiver: Receiver,
) -> None:
    receiver.answer(*[Answer(200, delay=0.3)] * 3)
    told: list[Reply | None] = []

    async def three_then_close() -> None:
        sender = Sender(5.0, True, 32, per_receiver=1)
        for _ in range(3):
            sender.send(receiver.url, _message, told.append)
        await asyncio.sleep(0.1)  # the first is at the receiver, two wait for its place
        await sender.aclose()
        await asyncio.sleep(0.5)  # past the first one's answer

    asyncio.run(three_then_close())

    assert told == []
    assert len(receiver.wait_for(1)) == 1
    time.sleep(0.1)
    assert len(receiver.received) == 1


def _message() -> tuple[dict[str, str], bytes]:
    return {"content-type": "application/json"}, b"{}"


def _never_made() -> tuple[dict[str, str], bytes]:
    raise AssertionError("a message that is not sent is not made")
