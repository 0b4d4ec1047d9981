"""The outbox of mail (docs/email.md, "Sending"): a reply's mail and an acknowledgement are
written here in the transaction that made them, and the dispatcher role sends them
(dispatch/mailer.py). Nothing here talks to a mail server.

A reply goes out from the mailbox the issue came in on, or the workspace's first mailbox;
a workspace without a mailbox sends no mail. Its Message-ID is `<msg_…@mailbox domain>`,
recorded as the message's e-mail side (`Message.email`, status `queued`), so that the
customer's answer threads by In-Reply-To as their first mail did."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from sqlalchemy import and_, bindparam, func, insert, literal_column, select

from supportdesk.db.connection import Connection
from supportdesk.db.tables import contacts, email_outbox, mailboxes, message_emails, messages
from supportdesk.domain.email.message_emails import OUTBOUND
from supportdesk.domain.ids import first_id_at, new_id
from supportdesk.domain.mailboxes.models import Mailbox
from supportdesk.domain.mailboxes.queries import base_address

if TYPE_CHECKING:  # issues' actions queue replies: no import back at run time
    from supportdesk.domain.issues.models import Issue, Message

REPLY = "reply"
# Message.visibility of what the requester sees (issues/models.py).
PUBLIC = "public"
ACKNOWLEDGEMENT = "acknowledgement"
# The outbox row's status; the message's e-mail side says queued | sent | failed.
PENDING = "pending"
SENT = "sent"
FAILED = "failed"
QUEUED = "queued"
# At most one acknowledgement per sender in this window (docs/email.md, "No mail loops"),
# and so many of the workspace's in all: mail with forged senders must not make the server
# a source of backscatter, nor each new issue read an unbounded hour of acknowledgements.
ACKNOWLEDGE_WINDOW = timedelta(hours=1)
ACKNOWLEDGEMENTS_IN_WINDOW = 500

# The mailbox of the issue's first mail, if any came in.
_CAME_IN_ON = (
    select(message_emails.c.mailbox_id)
    .select_from(
        messages.join(
            message_emails,
            and_(
                message_emails.c.workspace_id == messages.c.workspace_id,
                message_emails.c.id == messages.c.id,
            ),
        )
    )
    .where(
        messages.c.workspace_id == bindparam("workspace_id"),
        messages.c.issue_id == bindparam("issue_id"),
        message_emails.c.direction == literal_column("'inbound'"),
        message_emails.c.mailbox_id.is_not(None),
    )
    .order_by(messages.c.id)
    .limit(1)
    .scalar_subquery()
)
_FIRST_MAILBOX = (
    select(mailboxes.c.id)
    .where(mailboxes.c.workspace_id == bindparam("workspace_id"))
    .order_by(mailboxes.c.created_at, mailboxes.c.id)
    .limit(1)
    .scalar_subquery()
)
# Where a reply of the issue goes and whence: one read, no row when the workspace has no
# mailbox (e-mail off: this read is all a reply costs).
_ROUTE = (
    select(mailboxes.c.id, mailboxes.c.address, contacts.c.email)
    .select_from(
        contacts.join(
            mailboxes,
            and_(
                mailboxes.c.workspace_id == contacts.c.workspace_id,
                mailboxes.c.id == func.coalesce(_CAME_IN_ON, _FIRST_MAILBOX),
            ),
        )
    )
    .where(
        contacts.c.workspace_id == bindparam("workspace_id"),
        contacts.c.id == bindparam("requester_id"),
    )
)
_INSERT_EMAIL = insert(message_emails)
_INSERT_OUTBOX = insert(email_outbox)


@dataclass(frozen=True, slots=True)
class Queued:
    id: str
    message_key: str
    recipient: str


def _domain(address: str) -> str:
    return address.rsplit("@", 1)[1]


async def queue_reply(connection: Connection, issue: Issue, message: Message) -> Queued | None:
    """Queue the mail of a public reply in the caller's transaction; None when it is not
    mailed (a note, no mailbox in the workspace, a requester without an address)."""
    if message.visibility != PUBLIC:
        return None
    parameters = {
        "workspace_id": issue.workspace_id,
        "issue_id": issue.id,
        "requester_id": issue.requester_id,
    }
    rows = await connection.rows(_ROUTE, parameters)
    if not rows:
        return None
    mailbox_id, address, recipient = rows[0]
    if not recipient:
        return None
    key = f"{message.id}@{_domain(address)}"
    moment = message.created_at
    await connection.write(
        _INSERT_EMAIL,
        {
            "workspace_id": issue.workspace_id,
            "id": message.id,
            "mailbox_id": mailbox_id,
            "direction": OUTBOUND,
            "message_key": key,
            "status": QUEUED,
            "original_text": None,
            "html": None,
            "error": None,
            "created_at": moment,
        },
    )
    return await _queue(
        connection, issue.workspace_id, issue.id, mailbox_id, REPLY, recipient, key, None,
        message.id, moment,
    )  # fmt: skip


async def queue_acknowledgement(
    connection: Connection,
    mailbox: Mailbox,
    issue_id: str,
    recipient: str,
    answers: str | None,
    at: datetime,
) -> Queued | None:
    """Queue the acknowledgement of a new issue from mail, unless the sender had one within
    the hour (an auto-responder that writes anew each time gets one, not one each) or the
    workspace sent ACKNOWLEDGEMENTS_IN_WINDOW within it. Plus forms of an address are one
    sender: `victim+1@x` and `victim+2@x` reach one inbox."""
    if not mailbox.acknowledge:
        return None
    recipient = recipient.lower()
    # The hour's acknowledgements of the workspace, by the key's time order (ids sort by
    # their instant): a plus form cannot be matched by its recipient's value.
    since = at - ACKNOWLEDGE_WINDOW
    found = await connection.scalars(
        select(email_outbox.c.recipient)
        .where(
            email_outbox.c.workspace_id == mailbox.workspace_id,
            email_outbox.c.id >= first_id_at("OutboundEmail", since),
            email_outbox.c.created_at > since,
            email_outbox.c.kind == ACKNOWLEDGEMENT,
        )
        .limit(ACKNOWLEDGEMENTS_IN_WINDOW)
    )
    recent = list(found)
    sender = base_address(recipient)
    lately = any(base_address(sent) == sender for sent in recent)
    if lately or len(recent) >= ACKNOWLEDGEMENTS_IN_WINDOW:
        return None
    if answers is not None and answers.startswith("sha256:"):
        answers = None  # the mail had no Message-ID: a digest is nothing to refer to
    outbox_id = new_id("OutboundEmail", at)
    key = f"{outbox_id}@{mailbox.domain}"
    return await _queue(
        connection, mailbox.workspace_id, issue_id, mailbox.id, ACKNOWLEDGEMENT, recipient,
        key, answers, None, at, outbox_id,
    )  # fmt: skip


async def _queue(
    connection: Connection,
    workspace_id: str,
    issue_id: str,
    mailbox_id: str,
    kind: str,
    recipient: str,
    key: str,
    answers: str | None,
    message_id: str | None,
    at: datetime,
    outbox_id: str | None = None,
) -> Queued:
    outbox_id = outbox_id or new_id("OutboundEmail", at)
    await connection.write(
        _INSERT_OUTBOX,
        {
            "workspace_id": workspace_id,
            "id": outbox_id,
            "kind": kind,
            "mailbox_id": mailbox_id,
            "issue_id": issue_id,
            "message_id": message_id,
            "recipient": recipient,
            "message_key": key,
            "answers": answers,
            "status": PENDING,
            "attempts": 0,
            "next_attempt_at": at,
            "lease_until": None,
            "last_attempt_at": None,
            "last_error": None,
            "created_at": at,
        },
    )
    return Queued(outbox_id, key, recipient)
