"""The one pipeline every door feeds (docs/email.md): a raw message in, kept raw, read,
threaded, and written as an issue's message, once per Message-ID and mailbox.

What a message became is its kept row's `status`: `created` (it opened an issue),
`appended` (it joined one), `ignored` (the loop guard stopped it) or `parked` (it could
not be read or processed; kept for a person to look at). None of these is an error to the
door: the sender's server is told the mail was taken."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TypeGuard

from sqlalchemy import bindparam, insert, select, update
from sqlalchemy.exc import IntegrityError

from supportdesk.db import Database
from supportdesk.db.connection import Connection
from supportdesk.db.tables import inbound_emails, mailboxes, message_emails, messages
from supportdesk.domain import attachments
from supportdesk.domain.attachments.received import store_received_file
from supportdesk.domain.audit import Actor
from supportdesk.domain.clock import now
from supportdesk.domain.contacts.service import upsert_requester
from supportdesk.domain.email import loop_guard
from supportdesk.domain.email.message_emails import (
    INBOUND,
    RECEIVED,
    MessageEmail,
    record_message_email,
)
from supportdesk.domain.email.outbox import queue_acknowledgement
from supportdesk.domain.email.quotes import trimmed_reply
from supportdesk.domain.email.reading import ReadMail, UnreadableMail, message_key, read_mail
from supportdesk.domain.email.threading import Match, thread_of
from supportdesk.domain.events import record_events
from supportdesk.domain.ids import new_id
from supportdesk.domain.issues.actions import (
    MAX_BODY,
    Author,
    Opening,
    Said,
    add_message,
    customer_status,
    open_issue,
    requester_author,
    requester_events_of,
    requester_of,
)
from supportdesk.domain.issues.models import EMAIL, INTERNAL, PUBLIC, Issue, Message
from supportdesk.domain.issues.workflow import DEFAULT_PRIORITY, refusal_of
from supportdesk.domain.mailboxes.models import Mailbox
from supportdesk.domain.mailboxes.queries import is_our_address
from supportdesk.storage import ObjectStorage

log = logging.getLogger(__name__)

CREATED = loop_guard.CREATED
APPENDED = "appended"
IGNORED = "ignored"
PARKED = "parked"
# Who acts in the events of mail: the service, on the sender's behalf.
EMAIL_ACTOR = Actor("system", None, "e-mail", name="e-mail")
NO_SUBJECT = "(no subject)"
NO_TEXT = "(no text)"
# What of the untrimmed text is kept beside the trimmed body.
MAX_ORIGINAL_TEXT = 1_000_000
TRUNCATED = "\n\n[The rest of this message was cut: it was longer than a message takes.]"


@dataclass(frozen=True, slots=True)
class MailSetup:
    """What the pipeline needs of the deployment."""

    storage: ObjectStorage
    # Signs and checks the issue tokens of reply addresses (issue_tokens.py).
    thread_key: bytes
    max_message_bytes: int
    max_file_bytes: int


@dataclass(frozen=True, slots=True)
class Received:
    """What became of one message in one mailbox."""

    id: str
    status: str
    issue_id: str | None = None
    message_id: str | None = None
    reason: str | None = None
    # True when the mailbox had processed this Message-ID already (nothing new was done).
    duplicate: bool = False


# Written in the transaction that keeps a message (the IMAP door's checkpoint), so that
# what was kept and how far the door got are committed together or not at all.
AlongWith = Callable[[Connection], Awaitable[None]]


class TooLarge(Exception):
    """A message over the size limit: refused by the door, nothing kept."""


class MailboxGone(Exception):
    """The mailbox was deleted while its message arrived: nothing kept, and the door
    refuses the message as it would a recipient it does not know."""


@dataclass(frozen=True, slots=True)
class _Kept:
    """The row that keeps a message raw, before it is written."""

    id: str
    mailbox: Mailbox
    door: str
    key: str
    raw: bytes
    at: datetime
    along_with: AlongWith | None = None


async def receive(
    db: Database,
    setup: MailSetup,
    mailbox: Mailbox,
    raw: bytes,
    door: str,
    recipients: Sequence[str] = (),
    along_with: AlongWith | None = None,
) -> Received:
    """Keep, read and file one message for `mailbox`; `recipients` are the addresses the
    door was given (SMTP's RCPT), which may carry an issue token. `along_with` runs in the
    transaction that keeps the message; not for a duplicate, which keeps nothing."""
    if len(raw) > setup.max_message_bytes:
        raise TooLarge(f"a message takes at most {setup.max_message_bytes} bytes")
    at = now()
    try:
        # Parsing may take a large message a fraction of a second: not on the event loop.
        mail = await asyncio.to_thread(read_mail, raw)
    except UnreadableMail as unreadable:
        key = _key_of_unread(raw)
        kept = _Kept(new_id("InboundEmail", at), mailbox, door, key, raw, at, along_with)
        return await _park(db, kept, str(unreadable))
    kept = _Kept(new_id("InboundEmail", at), mailbox, door, mail.message_key, raw, at, along_with)
    earlier = await _earlier(db, kept)
    if earlier is not None:
        return earlier
    try:
        return await _file(db, setup, kept, mail, recipients)
    except Exception as error:
        return await _not_filed(db, kept, mail, error)


async def _not_filed(db: Database, kept: _Kept, mail: ReadMail, error: Exception) -> Received:
    if isinstance(error, IntegrityError):
        # Another door took the same Message-ID first: that one's outcome stands.
        found = await _earlier(db, kept)
        if found is not None:
            return found
    parked = await _park(db, kept, "could not be filed", mail)
    log.error("mail %s could not be filed", kept.id, exc_info=error)
    return parked


def _key_of_unread(raw: bytes) -> str:
    head = raw.split(b"\r\n\r\n", 1)[0].split(b"\n\n", 1)[0]
    for line in head.decode("latin-1").splitlines():
        if line.lower().startswith("message-id:"):
            return message_key(raw, line.split(":", 1)[1])
    return message_key(raw, None)


# Built once with bound values: the statements are compiled once, not per message.
_EARLIER = select(
    inbound_emails.c.id,
    inbound_emails.c.status,
    inbound_emails.c.issue_id,
    inbound_emails.c.message_id,
    inbound_emails.c.reason,
).where(
    inbound_emails.c.workspace_id == bindparam("workspace_id"),
    inbound_emails.c.mailbox_id == bindparam("mailbox_id"),
    inbound_emails.c.message_key == bindparam("message_key"),
)
_INSERT_KEPT = insert(inbound_emails)
_MAILBOX_KEPT = select(mailboxes.c.id).where(
    mailboxes.c.workspace_id == bindparam("workspace_id"),
    mailboxes.c.id == bindparam("mailbox_id"),
)


def _mailbox_of(kept: _Kept) -> dict[str, str]:
    return {"workspace_id": kept.mailbox.workspace_id, "mailbox_id": kept.mailbox.id}


async def _earlier(db: Database, kept: _Kept) -> Received | None:
    parameters = {
        "workspace_id": kept.mailbox.workspace_id,
        "mailbox_id": kept.mailbox.id,
        "message_key": kept.key,
    }
    async with db.read() as connection:
        rows = await connection.rows(_EARLIER, parameters)
    if not rows:
        return None
    kept_id, status, issue_id, message_id, reason = rows[0]
    return Received(kept_id, status, issue_id, message_id, reason, duplicate=True)


async def _park(db: Database, kept: _Kept, reason: str, mail: ReadMail | None = None) -> Received:
    async with db.transaction() as connection:
        found = await connection.scalar(
            select(inbound_emails.c.id).where(
                inbound_emails.c.workspace_id == kept.mailbox.workspace_id,
                inbound_emails.c.mailbox_id == kept.mailbox.id,
                inbound_emails.c.message_key == kept.key,
            )
        )
        if found is not None:
            return Received(str(found), PARKED, reason=reason, duplicate=True)
        if await connection.scalar(_MAILBOX_KEPT, _mailbox_of(kept)) is None:
            raise MailboxGone(kept.mailbox.address)
        await _keep(connection, kept, mail, PARKED, reason)
    log.warning("mail %s parked: %s", kept.id, reason)
    return Received(kept.id, PARKED, reason=reason)


async def _keep(
    connection: Connection,
    kept: _Kept,
    mail: ReadMail | None,
    status: str,
    reason: str | None,
    message: Message | None = None,
) -> None:
    await connection.write(
        _INSERT_KEPT,
        {
            "workspace_id": kept.mailbox.workspace_id,
            "id": kept.id,
            "mailbox_id": kept.mailbox.id,
            "door": kept.door,
            "message_key": kept.key,
            "sender": mail.sender.lower() if mail else None,
            "subject": mail.subject if mail else None,
            "size_bytes": len(kept.raw),
            "raw": kept.raw,
            "automatic": bool(mail and mail.automatic),
            "status": status,
            "reason": reason[:500] if reason else None,
            "issue_id": message.issue_id if message else None,
            "message_id": message.id if message else None,
            "received_at": kept.at,
        },
    )
    if kept.along_with is not None:
        await kept.along_with(connection)


async def _stored_files(
    db: Database, setup: MailSetup, workspace_id: str, mail: ReadMail, at: datetime
) -> tuple[list[str], list[str]]:
    """The mail's files, stored as uploads waiting for the message; and what was left out."""
    ids: list[str] = []
    left_out: list[str] = []
    for file in mail.files:
        if len(ids) >= attachments.MAX_PER_MESSAGE:
            left_out.append(f"{file.file_name} (a message takes {len(ids)} files)")
        elif len(file.data) > setup.max_file_bytes:
            left_out.append(f"{file.file_name} (over {setup.max_file_bytes} bytes)")
        else:
            stored = await store_received_file(
                db, setup.storage, workspace_id, file.file_name, file.data, at
            )
            ids.append(stored.id)
    return ids, left_out


def _body(text: str, left_out: Sequence[str]) -> tuple[str, str]:
    """The message's body (quoted history trimmed) and the text as it came."""
    original = text.replace("\x00", "").strip()
    body = trimmed_reply(original) if original else ""
    if left_out:
        body += "\n\n[Files not kept: " + "; ".join(left_out) + "]"
    body = body.strip() or NO_TEXT
    if len(body) > MAX_BODY:
        body = body[: MAX_BODY - len(TRUNCATED)] + TRUNCATED
    return body, original[:MAX_ORIGINAL_TEXT]


async def _file(
    db: Database,
    setup: MailSetup,
    kept: _Kept,
    mail: ReadMail,
    recipients: Sequence[str],
) -> Received:
    workspace_id = kept.mailbox.workspace_id
    signs = list(mail.automatic)
    if await is_our_address(db, workspace_id, mail.sender):
        # Our own mail come back (a forward, a loop through another desk): never filed.
        async with db.transaction() as connection:
            await _keep(
                connection,
                kept,
                _with_signs(mail, [loop_guard.OUR_OWN]),
                IGNORED,
                loop_guard.OUR_OWN,
            )
        return Received(kept.id, IGNORED, reason=loop_guard.OUR_OWN)
    mail = _with_signs(mail, signs)
    addresses = [*recipients, *mail.recipients]
    if mail.automatic:
        # Judged before its files are stored: mail the loop guard drops keeps none of them.
        async with db.read() as connection:
            match = await thread_of(connection, kept.mailbox, mail, addresses, setup.thread_key)
            guarded = await _loop_guarded(connection, kept, mail, match)
        if guarded:
            async with db.transaction() as connection:
                return await _ignored_by_loop_guard(connection, kept, mail)
    file_ids, left_out = await _stored_files(db, setup, workspace_id, mail, kept.at)
    body, original = _body(mail.text, left_out)
    async with db.transaction() as connection:
        reason: str | None
        match = await thread_of(connection, kept.mailbox, mail, addresses, setup.thread_key)
        if _joins(match):
            message = await _append(connection, match, mail, body, file_ids)
            status, reason = APPENDED, f"joined by {match.by}"
        elif await _loop_guarded(connection, kept, mail, match):
            # Judged otherwise a moment ago: another mail came between (its files wait for
            # the cleanup of files that no message took).
            return await _ignored_by_loop_guard(connection, kept, mail)
        else:
            message = await _open(connection, kept, mail, body, file_ids, match)
            status, reason = CREATED, "; ".join(signs) or None
            if not mail.automatic:  # never an automatic answer to a machine's mail
                await queue_acknowledgement(
                    connection, kept.mailbox, message.issue_id, mail.sender, mail.message_key,
                    kept.at,
                )  # fmt: skip
        await record_message_email(
            connection,
            workspace_id,
            MessageEmail(
                message.id, kept.mailbox.id, INBOUND, mail.message_key, RECEIVED,
                original, mail.html, None, kept.at,
            ),
        )  # fmt: skip
        await _keep(connection, kept, mail, status, reason, message)
    return Received(kept.id, status, message.issue_id, message.id, reason)


def _joins(match: Match | None) -> TypeGuard[Match]:
    """Whether the mail joins the issue it threads to (not closed, not merged away)."""
    return match is not None and refusal_of(match.issue.status, match.issue.merged_into) is None


async def _loop_guarded(
    connection: Connection, kept: _Kept, mail: ReadMail, match: Match | None
) -> bool:
    """Automatic mail that joins no issue, from a sender whose automatic mail opened one
    within the hour: dropped (docs/email.md, "No mail loops")."""
    if not mail.automatic or _joins(match):
        return False
    workspace_id = kept.mailbox.workspace_id
    return await loop_guard.opened_lately(connection, workspace_id, mail.sender.lower(), kept.at)


async def _ignored_by_loop_guard(connection: Connection, kept: _Kept, mail: ReadMail) -> Received:
    reason = "loop guard: " + ", ".join(mail.automatic)
    await _keep(connection, kept, mail, IGNORED, reason)
    return Received(kept.id, IGNORED, reason=reason)


def _with_signs(mail: ReadMail, signs: list[str]) -> ReadMail:
    return replace(mail, automatic=tuple(signs))


async def _append(
    connection: Connection, match: Match, mail: ReadMail, body: str, file_ids: list[str]
) -> Message:
    issue = match.issue
    requester = await requester_of(connection, issue)
    if mail.is_delivery_report:
        # A bounce is for the agents, never a customer's word (our reply it names failed).
        author = Author(mail.sender_name or mail.sender, "contact", requester.id)
        said = Said(body, INTERNAL, file_ids, EMAIL)
        _, message = await add_message(connection, EMAIL_ACTOR, issue, author, said, None)
        await _mark_failed(connection, issue, mail)
        return message
    if requester.email.lower() == mail.sender.lower():
        author = requester_author(requester)
    else:
        upserted = await upsert_requester(
            connection, issue.workspace_id, mail.sender, mail.sender_name
        )
        await record_events(
            connection, issue.workspace_id, EMAIL_ACTOR, requester_events_of(upserted)
        )
        author = requester_author(upserted.contact)
    # An auto-responder's mail joins the thread but does not reopen it.
    status = None if mail.automatic else customer_status(issue)
    said = Said(body, PUBLIC, file_ids, EMAIL)
    _, message = await add_message(connection, EMAIL_ACTOR, issue, author, said, status)
    return message


async def _mark_failed(connection: Connection, issue: Issue, mail: ReadMail) -> None:
    """Our sent mail of the issue that a delivery report answers did not arrive. Anyone may
    send a report naming any Message-ID: only the issue it joined is touched."""
    if not mail.answers:
        return
    of_issue = select(messages.c.id).where(
        messages.c.workspace_id == issue.workspace_id, messages.c.issue_id == issue.id
    )
    await connection.execute(
        update(message_emails)
        .where(
            message_emails.c.workspace_id == issue.workspace_id,
            message_emails.c.message_key.in_(list(mail.answers)),
            message_emails.c.direction == "outbound",
            message_emails.c.id.in_(of_issue),
        )
        .values(status="failed", error=f"bounced: {mail.subject}"[:1000])
    )


async def _open(
    connection: Connection,
    kept: _Kept,
    mail: ReadMail,
    body: str,
    file_ids: list[str],
    closed: Match | None,
) -> Message:
    subject = mail.subject or NO_SUBJECT
    if closed is not None:
        # The customer wrote to a closed issue: a new one, that says which it follows.
        body = f"{body}\n\n[Follows #{closed.issue.ticket_number}, which is closed.]"
    opening = Opening(
        subject, body, mail.sender, mail.sender_name, DEFAULT_PRIORITY, file_ids, EMAIL
    )
    issue_id = new_id("Issue", kept.at)
    _, message = await open_issue(
        connection, EMAIL_ACTOR, kept.mailbox.workspace_id, opening, issue_id, kept.at
    )
    return message


__all__ = ["EMAIL_ACTOR", "AlongWith", "Issue", "MailSetup", "Received", "TooLarge", "receive"]
