"""The doors themselves: who may deliver, to which address, in which form."""

from __future__ import annotations

import re
import smtplib
import socket
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from supportdesk.smtp.listener import (
    MAX_DATA_AT_ONCE,
    MAX_REFUSED_RECIPIENTS,
    MAX_SESSIONS,
    MAX_SESSIONS_PER_CLIENT,
)
from tests.email.conftest import MailboxFixture
from tests.email.doors import addressed, post_mail, smtp_send
from tests.email.kept import kept_mail
from tests.email.test_corpus import CORPUS, threads
from tests.graphql.mailboxes.helpers import DELETE
from tests.servers import RunningServer

pytestmark = pytest.mark.filterwarnings("ignore::ResourceWarning")


def _plain(mailbox: MailboxFixture) -> bytes:
    return addressed((CORPUS / "plain_new.eml").read_bytes(), mailbox).replace(b"\n", b"\r\n")


def test_a_session_guessing_recipients_is_closed(mailbox: MailboxFixture, smtp_port: int) -> None:
    client = smtplib.SMTP("127.0.0.1", smtp_port, timeout=10)
    client.ehlo()
    client.mail("eve@customer.test")

    codes = [client.rcpt(f"guess{n}@{mailbox.domain}")[0] for n in range(MAX_REFUSED_RECIPIENTS)]
    with pytest.raises(smtplib.SMTPServerDisconnected):
        client.noop()  # the server closed the session
    client.close()

    assert codes == [550] * (MAX_REFUSED_RECIPIENTS - 1) + [421]
    # A new session is welcome, and mail for the mailbox is taken.
    assert smtp_send(smtp_port, "alice@customer.test", [mailbox.address], _plain(mailbox)) == {}


def _in_data(port: int, mailbox: MailboxFixture) -> smtplib.SMTP:
    """A session that has begun sending a message, and not ended it."""
    client = smtplib.SMTP("127.0.0.1", port, timeout=10)
    client.ehlo()
    client.mail("alice@customer.test")
    assert client.rcpt(mailbox.address)[0] == 250
    client.putcmd("data")
    assert client.getreply()[0] == 354
    client.send(_plain(mailbox).split(b"\r\n\r\n", 1)[0] + b"\r\n\r\nThe first lines")
    return client


def _reply(sock: socket.socket) -> bytes:
    """One SMTP reply, all of its lines."""
    reply = b""
    while not re.search(rb"(^|\r\n)\d{3} [^\r\n]*\r\n$", reply):
        chunk = sock.recv(4096)
        if not chunk:
            raise ConnectionError(reply)
        reply += chunk
    return reply


def test_a_message_beyond_those_arriving_waits_its_turn(
    mailbox: MailboxFixture, smtp_port: int
) -> None:
    # Each arriving message is held in memory whole: a worker reads a few at a time. The
    # mail server in front sends from one address over many sessions; the next DATA waits
    # (no 354 yet) until one of those is filed, and none is refused.
    arriving = [_in_data(smtp_port, mailbox) for _ in range(MAX_DATA_AT_ONCE)]
    late = socket.create_connection(("127.0.0.1", smtp_port), timeout=10)
    _reply(late)
    rcpt = f"RCPT TO:<{mailbox.address}>".encode()
    for command in (b"EHLO late", b"MAIL FROM:<bob@customer.test>", rcpt):
        late.sendall(command + b"\r\n")
        assert _reply(late)[:1] == b"2"
    late.sendall(b"DATA\r\n")
    late.settimeout(1)
    with pytest.raises(TimeoutError):
        late.recv(4096)  # waiting: every place is taken

    first = arriving.pop(0)
    first.send(b" of a message.\r\n.\r\n")
    first_ended = first.getreply()[0]
    late.settimeout(10)
    go_ahead = _reply(late)
    late.sendall(_plain(mailbox) + b"\r\n.\r\n")
    late_ended = _reply(late)
    late.close()
    ended = []
    for client in arriving:
        client.send(b" of a message.\r\n.\r\n")
        ended.append(client.getreply()[0])
        client.quit()
    first.quit()

    assert (first_ended, go_ahead[:3], late_ended[:3]) == (250, b"354", b"250")
    assert ended == [250] * (MAX_DATA_AT_ONCE - 1)


def test_a_stranger_recipient_is_refused_at_rcpt(mailbox: MailboxFixture, smtp_port: int) -> None:
    stranger = "nobody@" + mailbox.domain

    with pytest.raises(smtplib.SMTPRecipientsRefused) as refused:
        smtp_send(smtp_port, "alice@customer.test", [stranger], _plain(mailbox))
    partly = smtp_send(
        smtp_port, "alice@customer.test", [stranger, mailbox.address], _plain(mailbox)
    )

    assert refused.value.recipients[stranger][0] == 550
    assert partly[stranger][0] == 550
    [kept] = kept_mail(mailbox)
    assert kept.status == "created"


def test_a_plus_form_of_the_address_reaches_the_mailbox(
    mailbox: MailboxFixture, smtp_port: int
) -> None:
    plus = mailbox.address.replace("@", "+billing@")

    assert smtp_send(smtp_port, "alice@customer.test", [plus.upper()], _plain(mailbox)) == {}

    [issue] = threads(mailbox)
    assert issue["subject"] == "Printer on fire"


def test_the_http_door_needs_the_mailboxs_token(mailbox: MailboxFixture) -> None:
    server = mailbox.workspace.server

    missing = httpx.post(
        f"{server.base_url}/v1/inbound-email",
        content=_plain(mailbox),
        headers={"Content-Type": "message/rfc822"},
    )
    api_key = post_mail(server, mailbox.workspace.key, _plain(mailbox))
    made_up = post_mail(server, "mbt_" + "A" * 38, _plain(mailbox))

    for answer in (missing, api_key, made_up):
        assert answer.status_code == 401
        assert answer.headers["www-authenticate"].startswith("Bearer")
        assert answer.json()["error"]["code"] == "UNAUTHENTICATED"
    assert kept_mail(mailbox) == []


def test_the_http_door_takes_raw_mail_only(mailbox: MailboxFixture) -> None:
    server = mailbox.workspace.server

    as_json = post_mail(server, mailbox.token, b'{"a": 1}', **{"Content-Type": "application/json"})
    empty = post_mail(server, mailbox.token, b"")
    got = httpx.get(f"{server.base_url}/v1/inbound-email")

    assert as_json.status_code == 415
    assert empty.status_code == 400
    assert got.status_code == 405
    assert kept_mail(mailbox) == []


def test_a_rotated_token_stops_working_at_once(mailbox: MailboxFixture) -> None:
    api = mailbox.workspace.client()
    rotated = api.ok(
        "mutation($id: ID!) { rotateMailboxToken(id: $id) { inboundToken } }", {"id": mailbox.id}
    )["rotateMailboxToken"]["inboundToken"]
    server = mailbox.workspace.server

    old = post_mail(server, mailbox.token, _plain(mailbox))
    new = post_mail(server, rotated, _plain(mailbox))

    assert (old.status_code, new.status_code) == (401, 202)


def test_one_message_for_two_workspaces_mailboxes_is_filed_in_each(
    mailbox: MailboxFixture, other_mailbox: MailboxFixture, smtp_port: int
) -> None:
    raw = _plain(mailbox)

    smtp_send(smtp_port, "alice@customer.test", [mailbox.address, other_mailbox.address], raw)

    assert [k.status for k in kept_mail(mailbox)] == ["created"]
    assert [k.status for k in kept_mail(other_mailbox)] == ["created"]
    assert len(threads(other_mailbox)) == 1


def test_refused_tokens_count_against_the_address(sqlite_url: str) -> None:
    server = RunningServer("sqlite", sqlite_url, failed_auth_per_minute=2).start()
    try:
        guesses = [post_mail(server, "mbt_" + "B" * 38, b"Subject: x\r\n\r\nx") for _ in range(3)]
    finally:
        server.stop()

    assert [answer.status_code for answer in guesses] == [401, 401, 429]
    assert guesses[2].json()["error"]["code"] == "RATE_LIMITED"


def test_one_message_sent_many_times_at_once_is_filed_once(mailbox: MailboxFixture) -> None:
    raw = _plain(mailbox)
    server = mailbox.workspace.server

    with ThreadPoolExecutor(6) as pool:
        answers = list(pool.map(lambda _: post_mail(server, mailbox.token, raw), range(6)))

    assert sorted(answer.status_code for answer in answers) == [200] * 5 + [202]
    assert len({answer.json()["issue_id"] for answer in answers}) == 1
    assert [kept.status for kept in kept_mail(mailbox)] == ["created"]
    [issue] = threads(mailbox)
    assert len(issue["messages"]["edges"]) == 1


def test_the_listener_takes_at_most_100_recipients_a_message(
    mailbox: MailboxFixture, smtp_port: int
) -> None:
    recipients = [mailbox.address.replace("@", f"+r{i}@") for i in range(101)]

    refused = smtp_send(smtp_port, "alice@customer.test", recipients, _plain(mailbox))

    assert list(refused) == [recipients[-1]]
    assert refused[recipients[-1]][0] == 452
    [kept] = kept_mail(mailbox)
    assert kept.status == "created"


def test_another_workspaces_mailbox_is_a_sender_like_any_other(
    mailbox: MailboxFixture, other_mailbox: MailboxFixture, smtp_port: int
) -> None:
    """Mail from an address another workspace uses as a mailbox is filed, not dropped as
    this workspace's own mail come back: a workspace that took a customer's address must
    not make that customer's mail to others vanish."""
    raw = _plain(mailbox).replace(b"alice@customer.test", other_mailbox.address.encode())

    smtp_send(smtp_port, other_mailbox.address, [mailbox.address], raw)

    [kept] = kept_mail(mailbox)
    assert kept.status == "created"
    assert len(threads(mailbox)) == 1


def _connect(port: int, client: str) -> smtplib.SMTP:
    return smtplib.SMTP("127.0.0.1", port, source_address=(client, 0), timeout=10)


def test_a_worker_holds_so_many_sessions_and_says_so_to_the_next(
    mailbox: MailboxFixture, smtp_port: int
) -> None:
    """One address gets MAX_SESSIONS_PER_CLIENT at once, all of them MAX_SESSIONS; the
    next is told 421, so its server tries again later, and a freed place is taken again."""
    held: list[smtplib.SMTP] = []
    try:
        for client in range(MAX_SESSIONS // MAX_SESSIONS_PER_CLIENT):
            for _ in range(MAX_SESSIONS_PER_CLIENT):
                held.append(_connect(smtp_port, f"127.0.0.{client + 2}"))
        with pytest.raises(smtplib.SMTPConnectError) as one_more:
            _connect(smtp_port, "127.0.0.2")
        with pytest.raises(smtplib.SMTPConnectError) as another_client:
            _connect(smtp_port, "127.0.1.1")
        held.pop().quit()

        assert one_more.value.smtp_code == another_client.value.smtp_code == 421
        again = _connect(smtp_port, "127.0.1.1")
        held.append(again)
        assert again.noop()[0] == 250
    finally:
        for session in held:
            session.close()
    # Every place given back: mail is taken as before.
    assert smtp_send(smtp_port, "alice@customer.test", [mailbox.address], _plain(mailbox)) == {}
    assert [kept.status for kept in kept_mail(mailbox)] == ["created"]


def test_a_mailbox_deleted_before_data_refuses_the_message(
    mailbox: MailboxFixture, smtp_port: int, caplog: pytest.LogCaptureFixture
) -> None:
    client = smtplib.SMTP("127.0.0.1", smtp_port, timeout=10)
    client.ehlo()
    client.mail("alice@customer.test")
    accepted, _ = client.rcpt(mailbox.address)
    mailbox.workspace.client().ok(DELETE, {"id": mailbox.id})

    with caplog.at_level("INFO"):
        refused, reply = client.data(_plain(mailbox))
    client.quit()

    assert accepted == 250
    assert refused == 550, reply
    assert not [record for record in caplog.records if record.levelname == "ERROR"]
