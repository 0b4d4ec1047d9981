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

from supportdesk.db import Database, in_ids
from supportdesk.db.connection import Connection
from supportdesk.db.tables import (
    contacts,
    email_outbox,
    issues,
    mailboxes,
    message_emails,
    messages,
)
from supportdesk.domain.attachments.queries import ATTACHMENTS_OF_MESSAGES
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
# A batch's mails of one workspace, with what their messages say (an acknowledgement has
# none): one statement for the batch, not one a mail. The leased rows come first, as a
# materialized CTE on PostgreSQL: with statistics that do not know the workspace yet (a
# new one, or rows since the last ANALYZE), the planner took its contacts as the outer
# loop and scanned the outbox once for each, 92 ms for ten mails instead of 0.2 ms.
_LEASED = (
    select(
        email_outbox.c.workspace_id,
        email_outbox.c.id,
        email_outbox.c.kind,
        email_outbox.c.mailbox_id,
        email_outbox.c.issue_id,
        email_outbox.c.message_id,
        email_outbox.c.recipient,
        email_outbox.c.message_key,
        email_outbox.c.answers,
        email_outbox.c.attempts,
    )
    .where(
        email_outbox.c.workspace_id == bindparam("workspace_id"),
        in_ids(email_outbox.c.id, "ids"),
    )
    .cte("leased")
    .prefix_with("MATERIALIZED", dialect="postgresql")
)
_LOAD = select(
    _LEASED.c.workspace_id,
    _LEASED.c.id,
    _LEASED.c.kind,
    _LEASED.c.issue_id,
    _LEASED.c.message_id,
    _LEASED.c.recipient,
    _LEASED.c.message_key,
    _LEASED.c.answers,
    _LEASED.c.attempts,
    mailboxes.c.address,
    mailboxes.c.name,
    issues.c.ticket_number,
    issues.c.subject,
    contacts.c.name,
    messages.c.body,
    messages.c.sender_name,
).select_from(
    _LEASED.join(
        mailboxes,
        and_(
            mailboxes.c.workspace_id == _LEASED.c.workspace_id,
            mailboxes.c.id == _LEASED.c.mailbox_id,
        ),
    )
    .join(
        issues,
        and_(
            issues.c.workspace_id == _LEASED.c.workspace_id,
            issues.c.id == _LEASED.c.issue_id,
        ),
    )
    .join(
        contacts,
        and_(
            contacts.c.workspace_id == issues.c.workspace_id,
            contacts.c.id == issues.c.requester_id,
        ),
    )
    .outerjoin(
        messages,
        and_(
            messages.c.workspace_id == _LEASED.c.workspace_id,
            messages.c.id == _LEASED.c.message_id,
        ),
    )
)
# The threads of a batch's issues of one workspace: each message's Message-ID, oldest first
# (each mail keeps those before its own message).
_THREADS = (
    select(messages.c.issue_id, messages.c.id, message_emails.c.message_key)
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
        in_ids(messages.c.issue_id, "issue_ids"),
    )
    .order_by(messages.c.issue_id, messages.c.id)
)


@dataclass(frozen=True, slots=True)
class Content:
    """The words and files of a mail, and the thread it answers."""

    body: str
    author_name: str
    thread: list[str]
    files: list[tuple[str, str, str | None]]  # name, type, storage key


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
    content: Content


async def take(
    db: Database, at: datetime, how_many: int, lease: timedelta = LEASE
) -> list[DueMail]:
    """Lease up to `how_many` mails due at `at` and load them with what they say. An idle
    outbox costs one indexed read: no write transaction (on SQLite, the writer's lock) is
    taken for nothing. A batch costs a read, the claim, then three reads for each workspace
    in it (the mails and their messages, the threads, the files), whatever its size."""
    async with db.read() as connection:
        offered = await connection.rows(_DUE, {"at": at, "how_many": how_many})
    if not offered:
        return []
    lease_end = at + lease
    parameters = {"at": at, "keys": [tuple(key) for key in offered], "lease_end": lease_end}
    async with db.transaction() as connection:
        keys = await connection.rows(_CLAIM, parameters)
    by_workspace: dict[str, list[str]] = {}
    for workspace_id, mail_id in keys:
        by_workspace.setdefault(workspace_id, []).append(mail_id)
    found: list[DueMail] = []
    async with db.read() as connection:
        for workspace_id, mail_ids in by_workspace.items():
            found += await _loaded(connection, workspace_id, mail_ids, lease_end)
    return found


async def _loaded(
    connection: Connection, workspace_id: str, mail_ids: list[str], lease_end: datetime
) -> list[DueMail]:
    """A workspace's leased mails, each with its message, thread and files."""
    rows = await connection.rows(_LOAD, {"workspace_id": workspace_id, "ids": mail_ids})
    replies = [row for row in rows if row[4] is not None]
    threads: dict[str, list[tuple[str, str]]] = {}
    files: dict[str, list[tuple[str, str, str | None]]] = {}
    if replies:
        issue_ids = sorted({row[3] for row in replies})
        parameters = {"workspace_id": workspace_id, "issue_ids": issue_ids}
        for issue_id, message_id, key in await connection.rows(_THREADS, parameters):
            threads.setdefault(issue_id, []).append((message_id, key))
        message_ids = [row[4] for row in replies]
        parameters = {"workspace_id": workspace_id, "message_ids": message_ids}
        for file in await connection.fetch(ATTACHMENTS_OF_MESSAGES, **parameters):
            assert file.message_id is not None
            files.setdefault(file.message_id, []).append(
                (file.file_name, file.content_type, file.storage_key)
            )
    found = []
    for row in rows:
        message_id, answers, body, author_name = row[4], row[7], row[14], row[15]
        if message_id is None:  # an acknowledgement: its words are the dispatcher's own
            content = Content("", "", [answers] if answers else [], [])
        else:
            thread = []
            # In the database's order of ids, up to the mail's own message.
            for earlier_id, key in threads.get(row[3], []):
                if earlier_id == message_id:
                    break
                thread.append(key)
            content = Content(body, author_name, thread, files.get(message_id, []))
        (workspace, mail_id, kind, issue_id, _, recipient, key, _, attempts) = row[:9]
        address, name, number, subject, requester = row[9:14]
        mail = DueMail(
            workspace, mail_id, kind, issue_id, message_id, recipient, key, answers,
            attempts, address, name, number, subject, requester, lease_end, content,
        )  # fmt: skip
        found.append(mail)
    return found


def _held(mail: DueMail) -> dict[str, object]:
    return {"in_workspace": mail.workspace_id, "the_mail": mail.id, "held": mail.lease_until}


_SETTLE = update(email_outbox).where(
    # An UPDATE's bound parameters may not take its columns' names.
    email_outbox.c.workspace_id == bindparam("in_workspace"),
    email_outbox.c.id == bindparam("the_mail"),
    # Still this dispatcher's: an attempt that outlived its lease records nothing.
    email_outbox.c.lease_until == bindparam("held"),
)


# A batch's sent mails of one workspace, in two updates built once (so compiled once), the
# batch's whole: its outbox rows still held by this dispatcher (an attempt that outlived its
# lease records nothing), then the e-mail sides of their messages.
_SETTLE_SENT = (
    update(email_outbox)
    .where(
        email_outbox.c.workspace_id == bindparam("in_workspace"),
        in_ids(email_outbox.c.id, "the_mails"),
        email_outbox.c.lease_until == bindparam("held"),
    )
    .values(
        status=outbox.SENT,
        attempts=email_outbox.c.attempts + 1,
        last_attempt_at=bindparam("attempted_at"),
        lease_until=None,
        last_error=None,
    )
    .returning(email_outbox.c.message_id)
)
_EMAIL_SENT = (
    update(message_emails)
    .where(
        message_emails.c.workspace_id == bindparam("in_workspace"),
        in_ids(message_emails.c.id, "the_messages"),
        # A bounce that came first stands.
        message_emails.c.status == literal_column(f"'{outbox.QUEUED}'"),
    )
    .values(status=outbox.SENT, error=None)
)


async def sent(db: Database, delivered: Sequence[tuple[DueMail, datetime]]) -> None:
    """Record mails the server took, in one transaction of two statements for each
    workspace: the dispatcher records a batch's at once, as it takes them at once. Their
    `last_attempt_at` is the batch's last send (they went within the same moments)."""
    if not delivered:
        return
    by_lease: dict[tuple[str, datetime], list[str]] = {}
    for mail, _ in delivered:
        by_lease.setdefault((mail.workspace_id, mail.lease_until), []).append(mail.id)
    at = max(when for _, when in delivered)
    async with db.transaction() as connection:
        for (workspace_id, held), mail_ids in by_lease.items():
            parameters = {
                "in_workspace": workspace_id,
                "the_mails": mail_ids,
                "held": held,
                "attempted_at": at,
            }
            settled = await connection.rows(_SETTLE_SENT, parameters)
            message_ids = [row[0] for row in settled if row[0] is not None]
            if message_ids:
                parameters = {"in_workspace": workspace_id, "the_messages": message_ids}
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
