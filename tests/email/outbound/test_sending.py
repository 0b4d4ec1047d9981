"""Outbound mail through a real SMTP server (CONTRACT §16 "Outbound"): replies reach the
requester from the issue's mailbox with the thread's headers and their files, notes never
leave, a 4xx is retried, a 5xx fails the message with a note and an event, and the
customer's answer to our mail threads back by its headers."""

from __future__ import annotations

import logging
import secrets
from email.utils import make_msgid
from typing import Any

import pytest

from tests.attachments.helpers import upload
from tests.client import GraphQLClient
from tests.dispatch.helpers import eventually
from tests.email.doors import post_mail, smtp_send
from tests.email.outbound.conftest import Desk, Mailbox, mailbox_of
from tests.email.outbound.sink import Received, Sink
from tests.graphql.events.helpers import all_events
from tests.graphql.issues.helpers import add_note, reply
from tests.web.settings_client import SettingsClient

THREAD = """
query($id: ID!) {
  node(id: $id) {
    ... on Issue {
      ticketNumber subject status messageCount
      messages(first: 50) {
        edges { node { id body visibility channel email { status messageId error } } }
      }
    }
  }
}
"""


def customer() -> str:
    return f"customer-{secrets.token_hex(4)}@client.example.org"


def first_mail(sender: str, to: str, subject: str, key: str, extra: str = "") -> bytes:
    return (
        f"From: Ada Customer <{sender}>\r\nTo: {to}\r\nSubject: {subject}\r\n"
        f"Message-ID: <{key}>\r\n{extra}"
        "Content-Type: text/plain; charset=utf-8\r\n\r\nMy printer is on fire.\r\n"
    ).encode()


def write_in(desk: Desk, mailbox: Mailbox, sender: str, subject: str = "Printer") -> str:
    """A customer's first mail, through the listener; the issue it opened."""
    key = make_msgid(domain="client.example.org")[1:-1]
    raw = first_mail(sender, mailbox.address, subject, key)
    assert smtp_send(desk.listener_port, sender, [mailbox.address], raw) == {}
    return issue_of_key(mailbox, key)


def issue_of_key(mailbox: Mailbox, key: str) -> str:
    """The issue whose messages include the mail with this Message-ID."""
    api = mailbox.workspace.client()
    query = "query { issues(first: 50) { edges { node { id } } } }"

    def check() -> str | None:
        for edge in api.ok(query)["issues"]["edges"]:
            for message in thread(api, edge["node"]["id"])["messages"]:
                if (message["email"] or {}).get("messageId") == key:
                    return str(edge["node"]["id"])
        return None

    return eventually(check, what=f"an issue with {key}")


def thread(api: GraphQLClient, issue_id: str) -> dict[str, Any]:
    node: dict[str, Any] = api.ok(THREAD, {"id": issue_id})["node"]
    node["messages"] = [edge["node"] for edge in node["messages"]["edges"]]
    return node


def mail_to(sink: Sink, recipient: str, count: int = 1) -> list[Received]:
    return eventually(
        lambda: (found := sink.to(recipient)) and len(found) >= count and found,
        what=f"{count} mails to {recipient}",
    )


def email_of(api: GraphQLClient, issue_id: str, message_id: str) -> dict[str, Any]:
    for message in thread(api, issue_id)["messages"]:
        if message["id"] == message_id:
            found: dict[str, Any] = message["email"]
            return found
    raise AssertionError(f"no message {message_id}")


def test_a_reply_reaches_the_requester_with_the_threads_headers_and_files(
    desk: Desk, sink: Sink, mailbox: Mailbox
) -> None:
    api = mailbox.workspace.client()
    sender = customer()
    issue_id = write_in(desk, mailbox, sender, "Printer on fire")
    issue = thread(api, issue_id)
    first_key = issue["messages"][0]["email"]["messageId"]
    file = upload(mailbox.workspace, b"%PDF-1.4 the manual", "manual.pdf")

    answered = reply(api, issue_id, "Unplug it, please.", attachmentIds=[file["id"]])
    assert answered["error"] is None, answered
    message_id = answered["message"]["id"]
    [sent] = mail_to(sink, sender)

    mail = sent.mail
    number = issue["ticketNumber"]
    assert sent.sender == mail["Reply-To"].addresses[0].addr_spec  # bounces come back to it
    assert mail["From"].addresses[0].addr_spec == mailbox.address
    assert mail["To"] == sender
    assert mail["Subject"] == f"Re: [#{number}] Printer on fire"
    assert mail["Message-ID"] == f"<{message_id}@{mailbox.domain}>"
    assert mail["In-Reply-To"] == f"<{first_key}>"
    assert mail["References"] == f"<{first_key}>"
    local, domain = mailbox.address.split("@")
    assert mail["Reply-To"].addresses[0].addr_spec.startswith(f"{local}+t{number}-")
    assert mail["Reply-To"].addresses[0].domain == domain
    assert mail["Auto-Submitted"] is None
    assert mail.get_body(("plain",)).get_content().strip() == "Unplug it, please."
    [attached] = list(mail.iter_attachments())
    assert attached.get_filename() == "manual.pdf"
    assert attached.get_content() == b"%PDF-1.4 the manual"
    email = eventually(lambda: (e := email_of(api, issue_id, message_id))["status"] == "sent" and e)
    assert email["messageId"] == f"{message_id}@{mailbox.domain}"

    # The second reply names the whole chain.
    second = reply(api, issue_id, "Did it help?")["message"]["id"]
    later = mail_to(sink, sender, 2)[1].mail
    assert later["References"] == f"<{first_key}> <{message_id}@{mailbox.domain}>"
    assert later["In-Reply-To"] == f"<{message_id}@{mailbox.domain}>"

    # The customer answers our mail (to the plain address): it threads by In-Reply-To.
    answer_key = make_msgid(domain="client.example.org")[1:-1]
    extra = (
        f"In-Reply-To: <{second}@{mailbox.domain}>\r\n"
        f"References: <{first_key}> <{second}@{mailbox.domain}>\r\n"
    )
    raw = first_mail(sender, mailbox.address, later["Subject"], answer_key, extra)
    assert smtp_send(desk.listener_port, sender, [mailbox.address], raw) == {}
    assert issue_of_key(mailbox, answer_key) == issue_id

    # And to the Reply-To address, with no headers at all: the token threads it.
    token_key = make_msgid(domain="client.example.org")[1:-1]
    reply_to = later["Reply-To"].addresses[0].addr_spec
    raw = first_mail(sender, reply_to, "something else", token_key)
    assert smtp_send(desk.listener_port, sender, [reply_to], raw) == {}
    assert issue_of_key(mailbox, token_key) == issue_id


def _first_reply_mailed(
    desk: Desk, sink: Sink, mailbox: Mailbox
) -> tuple[GraphQLClient, str, str, int]:
    """An issue written in by a new customer and answered once, that answer received by the
    sink: the API, the customer, the issue, and how many connections the sink had then."""
    api = mailbox.workspace.client()
    sender = customer()
    issue_id = write_in(desk, mailbox, sender)
    reply(api, issue_id, "One.")
    mail_to(sink, sender, 1)
    return api, sender, issue_id, sink.greetings


def test_mail_after_mail_goes_over_the_connection_kept_open(
    desk: Desk, sink: Sink, mailbox: Mailbox
) -> None:
    api, sender, issue_id, greeted = _first_reply_mailed(desk, sink, mailbox)
    for n, words in enumerate(["Two.", "Three.", "Four."], start=2):
        reply(api, issue_id, words)
        mail_to(sink, sender, n)
    # No new connection (each would have said EHLO) for three mails sent one by one.
    assert sink.greetings == greeted


def test_a_connection_the_server_closed_meanwhile_is_replaced(
    desk: Desk, sink: Sink, mailbox: Mailbox, caplog: pytest.LogCaptureFixture
) -> None:
    api, sender, issue_id, greeted = _first_reply_mailed(desk, sink, mailbox)
    sink.hang_up()
    caplog.set_level(logging.INFO, logger="supportdesk.dispatch.mail")
    second = reply(api, issue_id, "Two.")["message"]["id"]
    mail_to(sink, sender, 2)
    eventually(lambda: email_of(api, issue_id, second)["status"] == "sent")
    # Sent once, at its first attempt, over a new connection.
    assert not [r for r in caplog.records if r.name == "supportdesk.dispatch.mail"]
    assert sink.greetings > greeted
    assert [one.mail.get_content().strip() for one in sink.to(sender)] == ["One.", "Two."]


def test_a_note_is_never_sent(desk: Desk, sink: Sink, mailbox: Mailbox) -> None:
    api = mailbox.workspace.client()
    sender = customer()
    issue_id = write_in(desk, mailbox, sender)
    noted = add_note(api, issue_id, "The customer seems angry; careful.")
    assert noted["error"] is None, noted
    reply(api, issue_id, "We are on it.")
    [only] = mail_to(sink, sender)
    assert "angry" not in only.raw.decode()
    note_id = noted["message"]["id"]
    assert email_of(api, issue_id, note_id) is None


def test_a_reply_from_the_api_to_an_issue_not_from_mail_goes_from_the_first_mailbox(
    desk: Desk, sink: Sink, mailbox: Mailbox
) -> None:
    api = mailbox.workspace.client()
    sender = customer()
    made = api.ok(
        "mutation($i: CreateIssueInput!) { createIssue(input: $i) { issue { id } } }",
        {"i": {"subject": "By API", "body": "Hello", "requesterEmail": sender}},
    )
    issue_id = made["createIssue"]["issue"]["id"]
    reply(api, issue_id, "Hello from us.")
    [sent] = mail_to(sink, sender)
    assert sent.mail["From"].addresses[0].addr_spec == mailbox.address
    assert sent.mail["In-Reply-To"] is None


def test_no_mailbox_no_mail(desk: Desk, sink: Sink) -> None:
    from tests.conftest import make_workspace

    api = make_workspace(desk.server).client()
    sender = customer()
    made = api.ok(
        "mutation($i: CreateIssueInput!) { createIssue(input: $i) { issue { id } } }",
        {"i": {"subject": "No mail", "body": "Hello", "requesterEmail": sender}},
    )
    issue_id = made["createIssue"]["issue"]["id"]
    message_id = reply(api, issue_id, "Hello.")["message"]["id"]
    assert email_of(api, issue_id, message_id) is None


def test_a_server_answering_4xx_is_tried_again_until_it_takes_the_mail(
    desk: Desk, sink: Sink, mailbox: Mailbox
) -> None:
    api = mailbox.workspace.client()
    sender = customer()
    issue_id = write_in(desk, mailbox, sender)
    sink.answer(sender, "451 4.3.0 Try again later", "452 4.2.2 Mailbox full")
    message_id = reply(api, issue_id, "Third time lucky.")["message"]["id"]
    [sent] = mail_to(sink, sender)
    assert "Third time lucky." in sent.mail.get_body(("plain",)).get_content()
    email = eventually(lambda: (e := email_of(api, issue_id, message_id))["status"] == "sent" and e)
    assert email["error"] is None


def test_a_server_answering_5xx_fails_the_message_with_a_note_and_an_event(
    desk: Desk, sink: Sink, mailbox: Mailbox
) -> None:
    api = mailbox.workspace.client()
    sender = customer()
    issue_id = write_in(desk, mailbox, sender)
    sink.answer(sender, "550 5.1.1 No such user here")
    message_id = reply(api, issue_id, "Hello?")["message"]["id"]
    email = eventually(
        lambda: (e := email_of(api, issue_id, message_id))["status"] == "failed" and e
    )
    assert "550" in email["error"]
    assert sink.to(sender) == []
    notes = [m for m in thread(api, issue_id)["messages"] if m["visibility"] == "internal"]
    assert len(notes) == 1
    assert sender in notes[0]["body"] and "550" in notes[0]["body"]
    [event] = all_events(api, types=["message.email_failed"])
    assert event["data"]["message"]["id"] == message_id
    assert event["data"]["email"]["status"] == "failed"


def test_the_issue_page_shows_how_each_message_travelled(
    desk: Desk, sink: Sink, mailbox: Mailbox
) -> None:
    api, sender, issue_id, _ = _first_reply_mailed(desk, sink, mailbox)
    sink.answer(sender, "550 5.1.1 No such user here")
    failed = reply(api, issue_id, "Hello?")["message"]["id"]
    eventually(lambda: email_of(api, issue_id, failed)["status"] == "failed")
    agent = SettingsClient(desk.server.base_url).logged_in(
        mailbox.workspace.admin_email, mailbox.workspace.admin_password
    )

    page = agent.get(f"/inbox/issues/{thread(api, issue_id)['ticketNumber']}").text

    assert page.count('<span class="msg-channel">by e-mail</span>') == 1
    assert page.count('<span class="mail-state mail-sent">E-mailed</span>') == 1
    assert page.count('class="mail-state mail-failed"') == 1
    assert 'title="550 5.1.1 No such user here"' in page


def test_a_reply_to_an_address_that_needs_smtputf8_fails_with_a_note_not_a_retry(
    desk: Desk, sink: Sink, mailbox: Mailbox
) -> None:
    api = mailbox.workspace.client()
    sender = f"zoë-{secrets.token_hex(4)}@client.example.org"
    made = api.ok(
        "mutation($i: CreateIssueInput!) { createIssue(input: $i) { issue { id } } }",
        {"i": {"subject": "Hallo", "body": "Grüße", "requesterEmail": sender}},
    )
    issue_id = made["createIssue"]["issue"]["id"]
    message_id = reply(api, issue_id, "Hello?")["message"]["id"]
    email = eventually(
        lambda: (e := email_of(api, issue_id, message_id))["status"] == "failed" and e
    )
    assert "cannot be written" in email["error"]
    assert sink.to(sender) == []
    notes = [m for m in thread(api, issue_id)["messages"] if m["visibility"] == "internal"]
    assert len(notes) == 1 and sender in notes[0]["body"]


def test_our_own_mail_fed_back_in_is_ignored(desk: Desk, sink: Sink) -> None:
    box = mailbox_of(desk)
    api = box.workspace.client()
    sender = customer()
    issue_id = write_in(desk, box, sender)
    reply(api, issue_id, "Our answer.")
    [sent] = mail_to(sink, sender)
    before = thread(api, issue_id)["messageCount"]
    token = api.ok("query { mailboxes(first: 5) { edges { node { id } } } }")
    assert token  # the HTTP door needs the mailbox's token: rotate for a fresh one
    rotated = api.ok(
        "mutation($id: ID!) { rotateMailboxToken(id: $id) { inboundToken } }", {"id": box.id}
    )["rotateMailboxToken"]["inboundToken"]
    answer = post_mail(desk.server, rotated, sent.raw)
    assert answer.status_code == 202, answer.text
    assert answer.json()["status"] == "ignored"
    assert thread(api, issue_id)["messageCount"] == before
