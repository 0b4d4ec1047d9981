"""The outbox as the dispatcher works it (domain/email/outbox.py writes it): taking due mail
with a lease, reading what each mail says, and recording what came of an attempt.

Taken as webhook deliveries are (queue.py): a due row's `next_attempt_at` moves to the end
of a lease, so no other dispatcher sees it due until then; one whose dispatcher died is due
again when the lease runs out. The look for due mail is a read; the claim takes only rows
still due, so two dispatchers never both take one.
The reads of the queue look across workspaces by design; the tenancy guard in the tests
knows them by `WHERE email_outbox.next_attempt_at <=`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import and_, bindparam, literal_column, select, tuple_, update

from supportdesk.db import Database
from supportdesk.db.connection import Connection
from supportdesk.db.tables import (
    contacts,
    email_outbox,
    issues,
    mailboxes,
    message_emails,
    messages,
)
from supportdesk.domain.attachments.queries import attachments_of_messages
from supportdesk.domain.audit import Actor
from supportdesk.domain.email import outbox
from supportdesk.domain.events import record_events, snapshots
from supportdesk.domain.issues.actions import (
    Author,
    Said,
    add_message,
    issue_snapshot,
    locked_issue,
)
from supportdesk.domain.issues.models import INTERNAL, MESSAGE_COLUMNS, message_of
from supportdesk.domain.issues.workflow import refusal_of

LEASE = timedelta(seconds=60)
MAX_ERROR = 500
# Who acts in the events of mail the dispatcher sends.
MAIL_ACTOR = Actor("system", None, "e-mail", name="e-mail")
NOTE_AUTHOR = Author("e-mail", "system", "")

_IS_DUE = and_(
    email_outbox.c.next_attempt_at <= bindparam("at"),
    email_outbox.c.status == literal_column("'pending'"),
)
_DUE = (
    select(email_outbox.c.workspace_id, email_outbox.c.id)
    .where(_IS_DUE)
    .order_by(email_outbox.c.next_attempt_at)
    .limit(bindparam("how_many"))
)
# Taken if still due: a dispatcher that took it first moved `next_attempt_at` past `at`
# (PostgreSQL re-reads the row after waiting for the other's lock, so only one wins).
_CLAIM = (
    update(email_outbox)
    .where(
        _IS_DUE,
        tuple_(email_outbox.c.workspace_id, email_outbox.c.id).in_(
            bindparam("keys", expanding=True)
        ),
    )
    .values(lease_until=bindparam("lease_end"), next_attempt_at=bindparam("lease_end"))
    .returning(email_outbox.c.workspace_id, email_outbox.c.id)
)
_LOAD = (
    select(
        email_outbox.c.workspace_id,
        email_outbox.c.id,
        email_outbox.c.kind,
        email_outbox.c.issue_id,
        email_outbox.c.message_id,
        email_outbox.c.recipient,
        email_outbox.c.message_key,
        email_outbox.c.answers,
        email_outbox.c.attempts,
        mailboxes.c.address,
        mailboxes.c.name,
        issues.c.ticket_number,
        issues.c.subject,
        contacts.c.name,
    )
    .select_from(
        email_outbox.join(
            mailboxes,
            and_(
                mailboxes.c.workspace_id == email_outbox.c.workspace_id,
                mailboxes.c.id == email_outbox.c.mailbox_id,
            ),
        )
        .join(
            issues,
            and_(
                issues.c.workspace_id == email_outbox.c.workspace_id,
                issues.c.id == email_outbox.c.issue_id,
            ),
        )
        .join(
            contacts,
            and_(
                contacts.c.workspace_id == issues.c.workspace_id,
                contacts.c.id == issues.c.requester_id,
            ),
        )
    )
    .where(
        email_outbox.c.workspace_id == bindparam("workspace_id"),
        email_outbox.c.id == bindparam("id"),
    )
)
# The thread's Message-IDs up to the message sent, oldest first.
_THREAD = (
    select(message_emails.c.message_key)
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
        messages.c.id < bindparam("before"),
    )
    .order_by(messages.c.id)
)
_MESSAGE = select(messages.c.body, messages.c.sender_name).where(
    messages.c.workspace_id == bindparam("workspace_id"), messages.c.id == bindparam("id")
)


@dataclass(frozen=True, slots=True)
class DueMail:
    """One leased mail of the outbox and what it says."""

    workspace_id: str
    id: str
    kind: str
    issue_id: str
    message_id: str | None
    recipient: str
    message_key: str
    answers: str | None
    attempts: int  # made before this one
    mailbox_address: str
    mailbox_name: str
    ticket_number: int
    subject: str
    requester_name: str | None
    lease_until: datetime


@dataclass(frozen=True, slots=True)
class Content:
    """The words and files of a mail, and the thread it answers."""

    body: str
    author_name: str
    thread: list[str]
    files: list[tuple[str, str, str | None]]  # name, type, storage key


async def take(
    db: Database, at: datetime, how_many: int, lease: timedelta = LEASE
) -> list[DueMail]:
    """Lease up to `how_many` mails due at `at` and load them. An idle outbox costs one
    indexed read: no write transaction (on SQLite, the writer's lock) is taken for nothing."""
    async with db.read() as connection:
        offered = await connection.rows(_DUE, {"at": at, "how_many": how_many})
    if not offered:
        return []
    lease_end = at + lease
    parameters = {"at": at, "keys": [tuple(key) for key in offered], "lease_end": lease_end}
    async with db.transaction() as connection:
        keys = await connection.rows(_CLAIM, parameters)
        found: list[DueMail] = []
        for workspace_id, mail_id in keys:
            rows = await connection.rows(_LOAD, {"workspace_id": workspace_id, "id": mail_id})
            found.extend(DueMail(*(*row, lease_end)) for row in rows)
    return found


async def content(db: Database, mail: DueMail) -> Content:
    """What the mail says: a reply's message, files and thread; an acknowledgement's
    words are the dispatcher's own (its body left empty here)."""
    if mail.message_id is None:
        return Content("", "", [mail.answers] if mail.answers else [], [])
    parameters = {"workspace_id": mail.workspace_id, "id": mail.message_id}
    async with db.read() as connection:
        [(body, author_name)] = await connection.rows(_MESSAGE, parameters)
        thread = await connection.rows(
            _THREAD,
            {
                "workspace_id": mail.workspace_id,
                "issue_id": mail.issue_id,
                "before": mail.message_id,
            },
        )
    files = (await attachments_of_messages(db, mail.workspace_id, [mail.message_id]))[
        mail.message_id
    ]
    return Content(
        body,
        author_name,
        [row[0] for row in thread],
        [(file.file_name, file.content_type, file.storage_key) for file in files],
    )


def _held(mail: DueMail) -> dict[str, object]:
    return {"in_workspace": mail.workspace_id, "the_mail": mail.id, "held": mail.lease_until}


_SETTLE = update(email_outbox).where(
    # An UPDATE's bound parameters may not take its columns' names.
    email_outbox.c.workspace_id == bindparam("in_workspace"),
    email_outbox.c.id == bindparam("the_mail"),
    # Still this dispatcher's: an attempt that outlived its lease records nothing.
    email_outbox.c.lease_until == bindparam("held"),
)


# A sent mail's two updates, built once (so compiled once): every mail that goes out runs them.
_SETTLE_SENT = _SETTLE.values(
    status=outbox.SENT,
    attempts=email_outbox.c.attempts + 1,
    last_attempt_at=bindparam("attempted_at"),
    lease_until=None,
    last_error=None,
)
_EMAIL_SENT = (
    update(message_emails)
    .where(
        message_emails.c.workspace_id == bindparam("in_workspace"),
        message_emails.c.id == bindparam("the_message"),
        # A bounce that came first stands.
        message_emails.c.status == literal_column(f"'{outbox.QUEUED}'"),
    )
    .values(status=outbox.SENT, error=None)
)


async def sent(db: Database, delivered: Sequence[tuple[DueMail, datetime]]) -> None:
    """Record mails the server took (each with when), in one transaction: the dispatcher
    records a batch's at once, as it takes them at once."""
    if not delivered:
        return
    async with db.transaction() as connection:
        for mail, at in delivered:
            done = await connection.execute(_SETTLE_SENT, {**_held(mail), "attempted_at": at})
            if done.rowcount and mail.message_id is not None:
                parameters = {"in_workspace": mail.workspace_id, "the_message": mail.message_id}
                await connection.write(_EMAIL_SENT, parameters)


async def retry(db: Database, mail: DueMail, at: datetime, wait: float, error: str) -> None:
    async with db.transaction() as connection:
        await connection.execute(
            _SETTLE.values(
                attempts=email_outbox.c.attempts + 1,
                last_attempt_at=at,
                next_attempt_at=at + timedelta(seconds=wait),
                lease_until=None,
                last_error=error[:MAX_ERROR],
            ),
            _held(mail),
        )


async def failed(db: Database, mail: DueMail, at: datetime, error: str) -> None:
    """Failed for good: the message's e-mail side says so, and for a reply an internal note
    tells the agents and `message.email_failed` tells integrations."""
    error = error[:MAX_ERROR]
    async with db.transaction() as connection:
        done = await connection.execute(
            _SETTLE.values(
                status=outbox.FAILED,
                attempts=email_outbox.c.attempts + 1,
                last_attempt_at=at,
                lease_until=None,
                last_error=error,
            ),
            _held(mail),
        )
        if not done.rowcount or mail.message_id is None:
            return
        await _set_email(connection, mail, outbox.FAILED, error)
        await _note_failure(connection, mail, error)


async def _set_email(connection: Connection, mail: DueMail, status: str, error: str | None) -> None:
    await connection.execute(
        update(message_emails)
        .where(
            message_emails.c.workspace_id == mail.workspace_id,
            message_emails.c.id == mail.message_id,
        )
        .values(status=status, error=error)
    )


async def _note_failure(connection: Connection, mail: DueMail, error: str) -> None:
    issue = await locked_issue(connection, mail.workspace_id, mail.issue_id)
    [row] = await connection.rows(
        select(*MESSAGE_COLUMNS).where(
            messages.c.workspace_id == mail.workspace_id, messages.c.id == mail.message_id
        ),
        {},
    )
    if refusal_of(issue.status, issue.merged_into) is None:  # a closed issue takes no note
        body = (
            f"The e-mail of a reply to {mail.recipient} could not be delivered: {error}\n"
            "The customer has not seen it; reply again, or reach them another way."
        )
        said = Said(body, INTERNAL, (), "email")
        issue, _ = await add_message(connection, MAIL_ACTOR, issue, NOTE_AUTHOR, said, None)
    failure = {
        "issue": await issue_snapshot(connection, issue),
        "message": snapshots.message(message_of(row)),
        "email": {"status": outbox.FAILED, "messageId": mail.message_key, "error": error},
    }
    await record_events(
        connection, mail.workspace_id, MAIL_ACTOR, [("message.email_failed", failure)]
    )
