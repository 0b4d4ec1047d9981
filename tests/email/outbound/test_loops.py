"""No mail loops with outbound mail (CONTRACT §16 "No loops"): the acknowledgement reaches a
sender once an hour and never a machine; an auto-responder that answers every mail gets no
automatic mail and opens at most one issue an hour; a bounce of our reply marks it failed."""

from __future__ import annotations

import secrets
from email.utils import make_msgid

import pytest

from supportdesk.domain.email import outbox
from tests.dispatch.helpers import eventually
from tests.email.doors import smtp_send
from tests.email.outbound.conftest import Desk, Mailbox, mailbox_of
from tests.email.outbound.sink import Received, Sink
from tests.email.outbound.test_sending import (
    customer,
    email_of,
    first_mail,
    issue_of_key,
    mail_to,
    thread,
    write_in,
)
from tests.graphql.issues.helpers import reply

AUTO = "Auto-Submitted: auto-replied\r\n"
ISSUES = "query { issues(first: 100) { totalCount } }"


def new_key() -> str:
    return make_msgid(domain="robot.example.net")[1:-1]


def automatic(sink: Sink, recipient: str) -> list[Received]:
    return [one for one in sink.to(recipient) if one.mail["Auto-Submitted"] is not None]


def answer_every_mail(desk: Desk, sink: Sink, robot: str, answered: set[bytes]) -> int:
    """The auto-responder: an automatic answer to each mail it got and had not answered,
    to the address the mail says to reply to. How many it sent."""
    sent = 0
    for received in sink.to(robot):
        if received.raw in answered:
            continue
        answered.add(received.raw)
        mail = received.mail
        to = mail["Reply-To"].addresses[0].addr_spec
        extra = AUTO + f"In-Reply-To: {mail['Message-ID']}\r\n"
        raw = first_mail(robot, to, f"Out of office: {mail['Subject']}", new_key(), extra)
        assert smtp_send(desk.listener_port, robot, [to], raw) == {}
        sent += 1
    return sent


def test_the_acknowledgement_reaches_a_person_once_an_hour(desk: Desk, sink: Sink) -> None:
    box = mailbox_of(desk, acknowledge=True)
    sender = customer()
    first = write_in(desk, box, sender, "Printer on fire")
    [ack] = mail_to(sink, sender)
    mail = ack.mail
    number = thread(box.workspace.client(), first)["ticketNumber"]
    assert mail["Auto-Submitted"] == "auto-replied"
    assert mail["Subject"] == f"Re: [#{number}] Printer on fire"
    assert f"#{number}" in mail.get_body(("plain",)).get_content()
    assert mail["In-Reply-To"] is not None
    # Two more new issues within the hour: no more acknowledgements.
    write_in(desk, box, sender, "Scanner too")
    write_in(desk, box, sender, "And the fax")
    reply(box.workspace.client(), first, "A person's answer still goes.")
    mails = mail_to(sink, sender, 2)
    assert len(automatic(sink, sender)) == 1
    assert [m.mail["Auto-Submitted"] for m in mails].count(None) == 1


def test_a_workspace_sends_so_many_acknowledgements_an_hour(
    desk: Desk, sink: Sink, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Mail from ever new (forged) senders gets acknowledgements up to the workspace's
    hourly number, then none: the server is no source of backscatter."""
    monkeypatch.setattr(outbox, "ACKNOWLEDGEMENTS_IN_WINDOW", 2)
    box = mailbox_of(desk, acknowledge=True)
    senders = [customer() for _ in range(3)]

    issues = [write_in(desk, box, sender, "Invoice") for sender in senders]
    for sender in senders[:2]:
        mail_to(sink, sender)
    reply(box.workspace.client(), issues[2], "A person's answer still goes.")

    [answer] = mail_to(sink, senders[2])
    assert answer.mail["Auto-Submitted"] is None
    assert [len(automatic(sink, sender)) for sender in senders] == [1, 1, 0]


def test_plus_forms_of_an_address_share_its_acknowledgement(desk: Desk, sink: Sink) -> None:
    """`victim+1@x`, `victim+2@x` and `victim@x` reach one inbox: a stranger writing in
    under each gets that inbox one acknowledgement an hour, not one per form."""
    box = mailbox_of(desk, acknowledge=True)
    victim = customer()
    forms = [victim.replace("@", f"+{n}@") for n in (1, 2)] + [victim]
    issues = [write_in(desk, box, sender, f"Offer {n}") for n, sender in enumerate(forms)]

    reply(box.workspace.client(), issues[-1], "A person's answer still goes.")
    # Mail leaves in the order it was queued: once the reply is here, so is any earlier.
    eventually(
        lambda: [m for m in sink.to(victim) if m.mail["Auto-Submitted"] is None],
        what="the person's reply",
    )

    acknowledgements = [mail for form in forms for mail in automatic(sink, form)]
    assert len(acknowledgements) == 1
    assert acknowledgements[0].recipients == [forms[0]]


def test_an_auto_responder_gets_no_automatic_mail_and_opens_one_issue_an_hour(
    desk: Desk, sink: Sink
) -> None:
    box = mailbox_of(desk, acknowledge=True)
    api = box.workspace.client()
    robot = f"robot-{secrets.token_hex(4)}@robot.example.net"
    # It writes, automatically, five times anew: one issue, no acknowledgement.
    keys = [new_key() for _ in range(5)]
    for n, key in enumerate(keys):
        raw = first_mail(robot, box.address, f"Notice {n}", key, AUTO)
        assert smtp_send(desk.listener_port, robot, [box.address], raw) == {}
    issue_id = issue_of_key(box, keys[0])
    assert api.ok(ISSUES)["issues"]["totalCount"] == 1
    # An agent answers; the robot answers that, and whatever comes after, a few rounds.
    reply(api, issue_id, "Who are you?")
    mail_to(sink, robot)
    answered: set[bytes] = set()
    for _ in range(3):
        answer_every_mail(desk, sink, robot, answered)
    eventually(lambda: thread(api, issue_id)["messageCount"] >= 3, what="the robot's answer")
    assert len(sink.to(robot)) == 1  # only the person's reply ever went
    assert automatic(sink, robot) == []
    assert api.ok(ISSUES)["issues"]["totalCount"] == 1


def test_a_responder_without_signs_gets_one_acknowledgement(desk: Desk, sink: Sink) -> None:
    box = mailbox_of(desk, acknowledge=True)
    api = box.workspace.client()
    robot = f"plain-robot-{secrets.token_hex(4)}@robot.example.net"
    # A badly made responder that marks nothing: its first mail looks like a person's.
    first = new_key()
    raw = first_mail(robot, box.address, "Hello", first)
    assert smtp_send(desk.listener_port, robot, [box.address], raw) == {}
    issue_id = issue_of_key(box, first)
    mail_to(sink, robot)
    answered: set[bytes] = set()
    for _ in range(3):  # it answers our acknowledgement (automatically, at least)
        answer_every_mail(desk, sink, robot, answered)
    eventually(lambda: thread(api, issue_id)["messageCount"] >= 2, what="its answer joined")
    assert len(sink.to(robot)) == 1
    assert api.ok(ISSUES)["issues"]["totalCount"] == 1


def test_a_bounce_of_our_reply_marks_it_failed_with_a_note(
    desk: Desk, sink: Sink, mailbox: Mailbox
) -> None:
    api = mailbox.workspace.client()
    sender = customer()
    issue_id = write_in(desk, mailbox, sender)
    message_id = reply(api, issue_id, "Here is your answer.")["message"]["id"]
    [sent] = mail_to(sink, sender)
    eventually(lambda: email_of(api, issue_id, message_id)["status"] == "sent")
    # The receiving side accepted it, then bounced it to the envelope's sender.
    report = (
        "Return-Path: <>\r\n"
        "From: Mail Delivery System <MAILER-DAEMON@client.example.org>\r\n"
        f"To: {sent.sender}\r\nSubject: Undelivered Mail Returned to Sender\r\n"
        f"Message-ID: <{new_key()}>\r\nAuto-Submitted: auto-replied\r\nMIME-Version: 1.0\r\n"
        'Content-Type: multipart/report; report-type=delivery-status; boundary="b"\r\n\r\n'
        "--b\r\nContent-Type: text/plain\r\n\r\n"
        f"<{sender}>: 550 5.1.1 User unknown\r\n"
        "--b\r\nContent-Type: message/delivery-status\r\n\r\n"
        "Reporting-MTA: dns; client.example.org\r\n\r\n"
        f"Final-Recipient: rfc822; {sender}\r\nAction: failed\r\nStatus: 5.1.1\r\n\r\n"
        "--b\r\nContent-Type: text/rfc822-headers\r\n\r\n"
        f"From: {mailbox.address}\r\nTo: {sender}\r\nMessage-ID: {sent.mail['Message-ID']}\r\n"
        "--b--\r\n"
    ).encode()
    assert smtp_send(desk.listener_port, "", [sent.sender], report) == {}
    email = eventually(
        lambda: (e := email_of(api, issue_id, message_id))["status"] == "failed" and e
    )
    assert "bounced" in email["error"]
    notes = [m for m in thread(api, issue_id)["messages"] if m["visibility"] == "internal"]
    assert len(notes) == 1 and "550 5.1.1" in notes[0]["body"]


def test_a_delivery_report_marks_only_the_mail_of_the_issue_it_joins(
    desk: Desk, sink: Sink, mailbox: Mailbox
) -> None:
    """Anyone may send a report: one that joins a stranger's issue and also names our reply
    on another issue leaves that reply as it was."""
    api = mailbox.workspace.client()
    dave, mallory = customer(), customer()
    daves, mallorys = write_in(desk, mailbox, dave), write_in(desk, mailbox, mallory)
    to_dave = reply(api, daves, "Refunded.")["message"]["id"]
    reply(api, mallorys, "Hello.")
    [to_mallory] = mail_to(sink, mallory)
    eventually(lambda: email_of(api, daves, to_dave)["status"] == "sent")
    daves_key = email_of(api, daves, to_dave)["messageId"]
    report = (
        f"From: Mallory <{mallory}>\r\nTo: {to_mallory.sender}\r\n"
        f"Subject: Undelivered\r\nMessage-ID: <{new_key()}>\r\n"
        f"References: <{daves_key}>\r\nMIME-Version: 1.0\r\n"
        'Content-Type: multipart/report; report-type=delivery-status; boundary="b"\r\n\r\n'
        "--b\r\nContent-Type: text/plain\r\n\r\nNot delivered.\r\n"
        "--b\r\nContent-Type: text/rfc822-headers\r\n\r\n"
        f"Message-ID: {to_mallory.mail['Message-ID']}\r\n--b--\r\n"
    ).encode()

    assert smtp_send(desk.listener_port, "", [to_mallory.sender], report) == {}

    eventually(
        lambda: any(m["visibility"] == "internal" for m in thread(api, mallorys)["messages"]),
        what="the report joined Mallory's issue",
    )
    assert email_of(api, daves, to_dave)["status"] == "sent"
