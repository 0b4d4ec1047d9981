"""A Message-ID is the sender's to choose. Mail that reuses one the workspace has already
recorded (our reply's, or a customer's earlier mail to another of its mailboxes) must not
pull the answers of that thread into the reuser's issue."""

from __future__ import annotations

from email.utils import make_msgid

from tests.email.doors import smtp_send
from tests.email.outbound.conftest import Desk, Mailbox
from tests.email.outbound.test_sending import customer, first_mail, issue_of_key, thread
from tests.graphql.issues.helpers import reply
from tests.graphql.mailboxes.helpers import new_mailbox

ANSWER = "In-Reply-To: <{key}>\r\nReferences: <{key}>\r\n"


def second_mailbox(box: Mailbox) -> Mailbox:
    made = new_mailbox(box.workspace.client(), name="Sales")
    return Mailbox(box.workspace, made["mailbox"]["id"], made["mailbox"]["address"])


def send(desk: Desk, sender: str, to: str, subject: str, key: str, extra: str = "") -> None:
    raw = first_mail(sender, to, subject, key, extra)
    assert smtp_send(desk.listener_port, sender, [to], raw) == {}


def test_an_answer_to_a_customers_mail_joins_the_first_issue_of_its_message_id(
    desk: Desk, mailbox: Mailbox
) -> None:
    sales = second_mailbox(mailbox)
    alice, mallory, carol = customer(), customer(), customer()
    original = make_msgid(domain="client.example.org")[1:-1]
    send(desk, alice, mailbox.address, "Our contract", original)
    alices = issue_of_key(mailbox, original)
    # Mallory, on Cc, sends the same Message-ID to the other mailbox: a second issue.
    send(desk, mallory, sales.address, "Hijack", original)

    answer = make_msgid(domain="client.example.org")[1:-1]
    send(
        desk,
        carol,
        mailbox.address,
        "Re: Our contract",
        answer,
        ANSWER.format(key=original),
    )

    assert issue_of_key(mailbox, answer) == alices


def test_an_answer_to_our_reply_joins_its_issue_whoever_reused_its_message_id(
    desk: Desk, mailbox: Mailbox
) -> None:
    sales = second_mailbox(mailbox)
    dave, mallory = customer(), customer()
    opening = make_msgid(domain="client.example.org")[1:-1]
    send(desk, dave, mailbox.address, "Refund", opening)
    daves = issue_of_key(mailbox, opening)
    ours = reply(mailbox.workspace.client(), daves, "Refunded.")["message"]["id"]
    [sent] = [m for m in thread(mailbox.workspace.client(), daves)["messages"] if m["id"] == ours]
    our_key = sent["email"]["messageId"]
    send(desk, mallory, sales.address, "Hijack", our_key)

    answer = make_msgid(domain="client.example.org")[1:-1]
    send(desk, dave, sales.address, "Re: Refund", answer, ANSWER.format(key=our_key))

    assert issue_of_key(mailbox, answer) == daves
