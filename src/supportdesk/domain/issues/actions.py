"""The writers of issues: create, update, reply. Each is one transaction, which keeps the
full-text index in step too (search.py). On PostgreSQL the index is a column of the issue,
written by the statement that writes the row anyway (a new issue's INSERT, the UPDATE of
an issue a message joins); SQLite's index takes a statement of its own (two for a new
issue: it numbers the index's row first), as does a new subject on either.

The statements of createIssue and replyToIssue are built once, with bound parameters, and
run on the transaction's driver connection (`Connection.rows`): building, cache-keying and
executing them through SQLAlchemy per call cost more than sending them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from datetime import datetime

from sqlalchemy import Table, Update, bindparam, insert, select, update

from supportdesk.db import Database, in_ids
from supportdesk.db.connection import Connection
from supportdesk.db.search import SearchEntry
from supportdesk.db.tables import contacts, issues, messages, workspaces
from supportdesk.domain import attachments, idempotency
from supportdesk.domain.audit import Actor
from supportdesk.domain.clock import now
from supportdesk.domain.contacts import Contact, Requester
from supportdesk.domain.contacts.service import CONTACT_COLUMNS, upsert_requester
from supportdesk.domain.email.outbox import queue_reply
from supportdesk.domain.errors import FieldCode, not_found
from supportdesk.domain.events import (
    EVENT_COUNTER,
    MOVE_EVENT_COUNTER,
    EventCounter,
    record_events,
    snapshots,
)
from supportdesk.domain.ids import is_id_of, new_id
from supportdesk.domain.issues.models import (
    API,
    INBOX,
    INTERNAL,
    ISSUE_COLUMNS,
    PUBLIC,
    Issue,
    Message,
    issue_of,
)
from supportdesk.domain.issues.search import ISSUE_SEARCH, SUBJECT, THREAD
from supportdesk.domain.issues.workflow import (
    DEFAULT_PRIORITY,
    INITIAL_STATUS,
    PRIORITIES,
    STATUSES,
    check_transition,
    ensure_open_for_changes,
)
from supportdesk.domain.validation import Validator

MAX_SUBJECT = 255
MAX_BODY = 65_536
MAX_NAME = 200


@dataclass(frozen=True, slots=True)
class NewIssue:
    subject: str | None
    body: str | None
    requester_email: str | None
    requester_name: str | None = None
    priority: str | None = None
    idempotency_key: str | None = None
    # Uploads the first message takes (domain/attachments).
    attachment_ids: Sequence[str] = ()


def normalised_priority(check: Validator, value: str | None) -> str | None:
    if value is None:
        return None
    cleaned = value.strip().lower()
    if cleaned not in PRIORITIES:
        check.fail("priority", FieldCode.INVALID, f"priority is one of {', '.join(PRIORITIES)}.")
    return cleaned


def normalised_status(check: Validator, value: str | None) -> str | None:
    if value is None:
        return None
    cleaned = value.strip().lower()
    if cleaned not in STATUSES:
        check.fail("status", FieldCode.INVALID, f"status is one of {', '.join(STATUSES)}.")
    return cleaned


def _body(check: Validator, value: str | None) -> str:
    if value is None or not value.strip():
        check.fail("body", FieldCode.REQUIRED)
        return ""
    if len(value) > MAX_BODY:
        check.fail("body", FieldCode.TOO_LONG, f"body takes at most {MAX_BODY:,} characters.")
    elif "\x00" in value:
        # As Validator.text: no backend stores it alike (PostgreSQL text cannot hold it).
        check.fail("body", FieldCode.INVALID, "body holds a NUL character.")
    return value


# The ticket counter and the event counter in one statement: the workspace row is locked
# from here to the commit, so the fewer statements after it, the sooner the next writer.
_NEXT_TICKET = (
    update(workspaces)
    .where(workspaces.c.id == bindparam("workspace_id"))
    .values(last_ticket_number=workspaces.c.last_ticket_number + 1, **MOVE_EVENT_COUNTER)
    .returning(workspaces.c.last_ticket_number, *EVENT_COUNTER)
)
_MESSAGE_FIELDS = tuple(field.name for field in fields(Message))
_INSERT_MESSAGE = insert(messages)
_ISSUE = select(*ISSUE_COLUMNS).where(
    issues.c.workspace_id == bindparam("workspace_id"), issues.c.id == bindparam("id")
)
_LOCKED_ISSUE = _ISSUE.with_for_update()


def _save_reply(table: Table) -> Update:
    # An UPDATE's bound parameters may not take its columns' names.
    return (
        update(table)
        .where(table.c.workspace_id == bindparam("in_workspace"), table.c.id == bindparam("the_id"))
        .values(
            updated_at=bindparam("new_updated_at", type_=table.c.updated_at.type),
            message_count=table.c.message_count + 1,
            status=bindparam("new_status", type_=table.c.status.type),
        )
        .returning(*(table.c[column.name] for column in ISSUE_COLUMNS))
    )


# The issue a message joins, and the message's words in the thread's index.
_SAVE_REPLY = ISSUE_SEARCH.appending(THREAD, _save_reply)


def _message_row(message: Message) -> dict[str, object]:
    # Not dataclasses.asdict: it deep-copies every value.
    return {name: getattr(message, name) for name in _MESSAGE_FIELDS}


async def _next_ticket_number(
    connection: Connection, workspace_id: str, event_count: int
) -> tuple[int, EventCounter]:
    """Moves the workspace's ticket counter inside the caller's transaction (a rollback
    gives the number back, and the row lock makes concurrent creators take turns), and
    its event counter by `event_count`."""
    await connection.take_turn(workspace_id)
    parameters = {"workspace_id": workspace_id, "event_count": event_count}
    [(number, *counter)] = await connection.rows(_NEXT_TICKET, parameters)
    return int(number), EventCounter.of(counter, event_count)


async def create_issue(db: Database, actor: Actor, workspace_id: str, new: NewIssue) -> Issue:
    """Open an issue for a requester (a contact, created when new); its body is the first
    message. The ticket number is the workspace's next, gap-free. Records `contact.created`
    (for a new requester) and `issue.created`; an idempotent replay records nothing."""
    check = Validator()
    subject = check.text("subject", new.subject, MAX_SUBJECT, required=True)
    body = _body(check, new.body)
    email = check.email("requesterEmail", new.requester_email, required=True)
    name = check.text("requesterName", new.requester_name, MAX_NAME, required=False)
    priority = normalised_priority(check, new.priority) or DEFAULT_PRIORITY
    key = check.text(
        "idempotencyKey", new.idempotency_key, idempotency.MAX_KEY_LENGTH, required=False
    )
    attachment_ids = attachments.checked_ids(check, new.attachment_ids)
    check.check()
    assert subject is not None
    assert email is not None
    moment = now()
    issue_id = new_id("Issue", moment)
    # The workspace's row is locked from the ticket number on.
    async with db.transaction() as connection:
        if key is not None:
            fingerprint = idempotency.request_hash(
                {
                    "subject": subject,
                    "body": body,
                    "email": email.lower(),
                    "name": name,
                    "priority": priority,
                    # Only when given: keys of calls without files keep their fingerprints.
                    **({"attachments": attachment_ids} if attachment_ids else {}),
                }
            )
            earlier = await idempotency.claim(
                connection, workspace_id, "createIssue", key, fingerprint, issue_id, moment
            )
            if earlier is not None:
                return await _existing_issue(connection, workspace_id, earlier)
        opening = Opening(subject, body, email, name, priority, attachment_ids, channel_of(actor))
        issue, _ = await open_issue(connection, actor, workspace_id, opening, issue_id, moment)
    return issue


@dataclass(frozen=True, slots=True)
class Opening:
    """A new issue's checked parts: what `open_issue` writes."""

    subject: str
    body: str
    email: str
    name: str | None
    priority: str
    attachment_ids: Sequence[str]
    channel: str


def channel_of(actor: Actor) -> str:
    """Where a message written by `actor` comes from: a person's page, or the API."""
    return INBOX if actor.type == "member" else API


async def open_issue(
    connection: Connection,
    actor: Actor,
    workspace_id: str,
    opening: Opening,
    issue_id: str,
    moment: datetime,
) -> tuple[Issue, Message]:
    """Write a new issue and its first message in the caller's transaction, the requester
    made or found, with their events (`contact.created` first, then `issue.created`)."""
    upserted = await upsert_requester(connection, workspace_id, opening.email, opening.name)
    requester = upserted.contact
    requester_events = requester_events_of(upserted)
    number, counter = await _next_ticket_number(connection, workspace_id, len(requester_events) + 1)
    [search_rowid] = await ISSUE_SEARCH.next_rowids(connection, 1)
    await ISSUE_SEARCH.insert(
        connection,
        {
            "workspace_id": workspace_id,
            "id": issue_id,
            "ticket_number": number,
            "subject": opening.subject,
            "status": INITIAL_STATUS,
            "priority": opening.priority,
            "requester_id": requester.id,
            "message_count": 1,
            "created_at": moment,
            "updated_at": moment,
            "search_rowid": search_rowid,
        },
        SearchEntry(search_rowid, (workspace_id, issue_id), (opening.subject, opening.body)),
    )
    message = Message(
        new_id("Message", moment),
        workspace_id,
        issue_id,
        opening.name or opening.email,
        opening.body,
        "contact",
        requester.id,
        PUBLIC,
        moment,
        opening.channel,
    )
    await connection.write(_INSERT_MESSAGE, _message_row(message))
    files = await attachments.attach(connection, workspace_id, message.id, opening.attachment_ids)
    issue = Issue(
        issue_id,
        workspace_id,
        number,
        opening.subject,
        INITIAL_STATUS,
        opening.priority,
        requester.id,
        1,
        moment,
        moment,
    )
    await record_events(
        connection,
        workspace_id,
        actor,
        [
            *requester_events,
            (
                "issue.created",
                {
                    "issue": snapshots.issue(issue, _requester_snapshot(requester)),
                    "message": snapshots.message(message, files),
                },
            ),
        ],
        counter,
    )
    return issue, message


def requester_events_of(upserted: Requester) -> list[tuple[str, snapshots.Snapshot]]:
    """`contact.created` for a new requester, `contact.updated` for one that got its name."""
    snapshot = snapshots.contact(upserted.contact)
    if upserted.created:
        return [("contact.created", {"contact": snapshot})]
    if upserted.named:
        change = {"name": {"from": None, "to": upserted.contact.name}}
        return [("contact.updated", {"contact": snapshot, "changes": change})]
    return []


def _requester_snapshot(contact: Contact) -> snapshots.Snapshot:
    return snapshots.requester(contact.id, contact.email, contact.name)


_REQUESTERS = select(contacts.c.id, contacts.c.email, contacts.c.name).where(
    contacts.c.workspace_id == bindparam("workspace_id"), in_ids(contacts.c.id, "ids")
)


async def issue_snapshots(
    connection: Connection, workspace_id: str, shown: Sequence[Issue]
) -> dict[str, snapshots.Snapshot]:
    """Issues as events show them, their requesters included (read in one statement)."""
    ids = list({issue.requester_id for issue in shown})
    rows = await connection.rows(_REQUESTERS, {"workspace_id": workspace_id, "ids": ids})
    requesters = {row[0]: snapshots.requester(*row) for row in rows}
    return {issue.id: snapshots.issue(issue, requesters[issue.requester_id]) for issue in shown}


async def issue_snapshot(connection: Connection, issue: Issue) -> snapshots.Snapshot:
    """The issue as events show it, its requester included."""
    return (await issue_snapshots(connection, issue.workspace_id, [issue]))[issue.id]


async def _existing_issue(connection: Connection, workspace_id: str, issue_id: str) -> Issue:
    [row] = await connection.rows(_ISSUE, {"workspace_id": workspace_id, "id": issue_id})
    return issue_of(row)


# Several issues at once, locked in id order: two writers locking overlapping sets never
# wait for each other in a circle.
_LOCKED_ISSUES = (
    select(*ISSUE_COLUMNS)
    .where(issues.c.workspace_id == bindparam("workspace_id"), in_ids(issues.c.id, "ids"))
    .order_by(issues.c.id)
    .with_for_update()
)


async def locked_issues(
    connection: Connection, workspace_id: str, issue_ids: Sequence[str]
) -> dict[str, Issue]:
    """The workspace's issues among `issue_ids` (malformed ids are simply not found),
    locked until the transaction ends."""
    wellformed = [issue_id for issue_id in issue_ids if is_id_of(issue_id, "Issue")]
    if not wellformed:
        return {}
    rows = await connection.rows(_LOCKED_ISSUES, {"workspace_id": workspace_id, "ids": wellformed})
    return {issue.id: issue for issue in map(issue_of, rows)}


async def locked_issue(connection: Connection, workspace_id: str, issue_id: str) -> Issue:
    if not is_id_of(issue_id, "Issue"):
        raise not_found("Issue")
    # FOR UPDATE on PostgreSQL; SQLAlchemy writes nothing for it on SQLite, which has no
    # row locks and whose writer already holds the database (BEGIN IMMEDIATE).
    parameters = {"workspace_id": workspace_id, "id": issue_id}
    rows = await connection.rows(_LOCKED_ISSUE, parameters)
    if not rows:
        raise not_found("Issue")
    return issue_of(rows[0])


async def _save(connection: Connection, issue: Issue, **changes: object) -> Issue:
    result = await connection.execute(
        update(issues)
        .where(issues.c.workspace_id == issue.workspace_id, issues.c.id == issue.id)
        .values(**changes)
        .returning(*ISSUE_COLUMNS)
    )
    return issue_of(result.one())


async def update_issue(
    db: Database,
    actor: Actor,
    workspace_id: str,
    issue_id: str,
    *,
    subject: str | None = None,
    status: str | None = None,
    priority: str | None = None,
) -> Issue:
    """Change what is given; setting a field to its current value changes nothing."""
    check = Validator()
    clean_subject = (
        check.text("subject", subject, MAX_SUBJECT, required=True) if subject is not None else None
    )
    clean_status = normalised_status(check, status)
    clean_priority = normalised_priority(check, priority)
    check.check()
    async with db.transaction() as connection:
        issue = await locked_issue(connection, workspace_id, issue_id)
        ensure_open_for_changes(issue.status, issue.merged_into)
        if clean_status is not None:
            check_transition(issue.status, clean_status)
        changes = {
            key: value
            for key, value in (
                ("subject", clean_subject),
                ("status", clean_status),
                ("priority", clean_priority),
            )
            if value is not None and getattr(issue, key) != value
        }
        if not changes:
            return issue
        changed = await _save(connection, issue, updated_at=now(), **changes)
        if "subject" in changes:
            await ISSUE_SEARCH.set_text(
                connection, SUBJECT, (workspace_id, issue.id), changed.subject
            )
        await _record_update(connection, actor, issue, changed)
        return changed


async def _record_update(connection: Connection, actor: Actor, before: Issue, after: Issue) -> None:
    """`issue.updated` with the fields that changed; nothing when none did."""
    after_snapshot = await issue_snapshot(connection, after)
    before_snapshot = snapshots.issue(before, after_snapshot["requester"])
    changes = snapshots.changes(before_snapshot, after_snapshot)
    changes.pop("messageCount", None)
    if changes:
        await record_events(
            connection,
            after.workspace_id,
            actor,
            [("issue.updated", {"issue": after_snapshot, "changes": changes})],
        )


class ThreadMoved(Exception):
    """A reply or note was written from a view of the thread that ended at a message
    older than the thread's newest: it is not sent, so that the writer sees what came."""

    def __init__(self, newer_ids: Sequence[str]) -> None:
        super().__init__(f"{len(newer_ids)} newer message(s) in the thread")
        self.newer_ids = list(newer_ids)


async def reply_to_issue(
    db: Database,
    actor: Actor,
    workspace_id: str,
    issue_id: str,
    body: str | None,
    status: str | None = None,
    attachment_ids: Sequence[str] = (),
    *,
    seen_up_to: str | None = None,
) -> tuple[Issue, Message]:
    """Add a public message from `actor` (its label is the sender name), with the uploads
    `attachment_ids`, and optionally move the status, in one transaction. Returns the
    issue and the new message. With `seen_up_to` (the newest message id the writer was
    shown; "" for none), a thread that has a newer message raises ThreadMoved instead."""
    check = Validator()
    clean_body = _body(check, body)
    clean_status = normalised_status(check, status)
    files = attachments.checked_ids(check, attachment_ids)
    check.check()
    said = Said(clean_body, PUBLIC, files, seen_up_to=seen_up_to, mailed=True)
    return await _add_message(db, actor, workspace_id, issue_id, said, clean_status)


async def add_note(
    db: Database,
    actor: Actor,
    workspace_id: str,
    issue_id: str,
    body: str | None,
    attachment_ids: Sequence[str] = (),
    *,
    status: str | None = None,
    seen_up_to: str | None = None,
) -> tuple[Issue, Message]:
    """Add an internal note from `actor`, with the uploads `attachment_ids`: a message the
    requester never sees. Like a reply, it moves `updatedAt` and records `message.created`.
    The API's addNote changes no status; the inbox may move it in the same transaction
    (`status`), and holds a note written from a stale view as a reply does (`seen_up_to`)."""
    check = Validator()
    clean_body = _body(check, body)
    clean_status = normalised_status(check, status)
    files = attachments.checked_ids(check, attachment_ids)
    check.check()
    said = Said(clean_body, INTERNAL, files, seen_up_to=seen_up_to)
    return await _add_message(db, actor, workspace_id, issue_id, said, clean_status)


@dataclass(frozen=True, slots=True)
class Said:
    """A new message's text, who may see it, the uploads it takes and where it came from."""

    body: str
    visibility: str
    attachment_ids: Sequence[str]
    channel: str = API
    # The newest message the writer was shown, when the writer asks to be held (ThreadMoved).
    seen_up_to: str | None = None
    # Whether the requester gets a copy by mail (a reply of the team's).
    mailed: bool = False


# The thread's messages after the one a writer saw (ids sort by creation time).
_NEWER_MESSAGES = (
    select(messages.c.id)
    .where(
        messages.c.workspace_id == bindparam("workspace_id"),
        messages.c.issue_id == bindparam("issue_id"),
        messages.c.id > bindparam("seen_up_to"),
    )
    .order_by(messages.c.id)
)


@dataclass(frozen=True, slots=True)
class Author:
    """Who wrote a message: its sender name, and the contact, member or machine user."""

    sender_name: str
    type: str
    id: str


def author_of(actor: Actor) -> Author:
    return Author(actor.label, actor.type, actor.id or "")


def requester_author(requester: Contact) -> Author:
    return Author(requester.name or requester.email, "contact", requester.id)


async def _add_message(
    db: Database,
    actor: Actor,
    workspace_id: str,
    issue_id: str,
    said: Said,
    status: str | None,
) -> tuple[Issue, Message]:
    async with db.transaction() as connection:
        return await _add_own_message(connection, actor, workspace_id, issue_id, said, status)


async def _add_own_message(
    connection: Connection,
    actor: Actor,
    workspace_id: str,
    issue_id: str,
    said: Said,
    status: str | None,
) -> tuple[Issue, Message]:
    """`actor`'s message, in the caller's transaction; held (ThreadMoved) when the writer
    had not seen the thread's newest message."""
    said = replace(said, channel=channel_of(actor))
    issue = await locked_issue(connection, workspace_id, issue_id)
    if said.seen_up_to is not None:
        parameters = {"workspace_id": workspace_id, "issue_id": issue.id}
        newer = await connection.rows(
            _NEWER_MESSAGES, {**parameters, "seen_up_to": said.seen_up_to}
        )
        if newer:
            raise ThreadMoved([row[0] for row in newer])
    return await add_message(connection, actor, issue, author_of(actor), said, status)


async def add_message(
    connection: Connection,
    actor: Actor,
    issue: Issue,
    author: Author,
    said: Said,
    status: str | None,
) -> tuple[Issue, Message]:
    """Add a message to `issue` (locked by the caller) in the caller's transaction, move
    its status if asked, and record `message.created` (and `issue.updated`)."""
    ensure_open_for_changes(issue.status, issue.merged_into)
    if status is not None:
        check_transition(issue.status, status)
    workspace_id = issue.workspace_id
    moment = now()
    message = Message(
        new_id("Message", moment),
        workspace_id,
        issue.id,
        author.sender_name,
        said.body,
        author.type,
        author.id,
        said.visibility,
        moment,
        said.channel,
    )
    await connection.rows(_INSERT_MESSAGE, _message_row(message))
    files = await attachments.attach(connection, workspace_id, message.id, said.attachment_ids)
    # Notes are indexed too: every key that reads issues reads them.
    [saved] = await _SAVE_REPLY.run(
        connection,
        {
            "in_workspace": workspace_id,
            "the_id": issue.id,
            "new_updated_at": moment,
            "new_status": status or issue.status,
        },
        (workspace_id, issue.id),
        said.body,
    )
    changed = issue_of(saved)
    if said.mailed:
        # Sent by the dispatcher role after the commit; queued before the events, which
        # hold the workspace's counter to the commit.
        await queue_reply(connection, changed, message)
    shown = await issue_snapshot(connection, changed)
    recorded = [
        (
            "message.created",
            {"issue": shown, "message": snapshots.message(message, files)},
        )
    ]
    if changed.status != issue.status:
        change = {"status": {"from": issue.status, "to": changed.status}}
        recorded.append(("issue.updated", {"issue": shown, "changes": change}))
    await record_events(connection, workspace_id, actor, recorded)
    return changed, message


# A customer's message moves a solved issue, or one pending on the customer, back to open
# (docs/email.md); on_hold waits on someone else and stays.
REOPENED = "open"
_AWAITING_THE_CUSTOMER = frozenset({"solved", "pending"})


def customer_status(issue: Issue) -> str | None:
    """The status a customer's new message moves the issue to, if any."""
    return REOPENED if issue.status in _AWAITING_THE_CUSTOMER else None


async def add_customer_message(
    db: Database,
    actor: Actor,
    workspace_id: str,
    issue_id: str,
    body: str | None,
    attachment_ids: Sequence[str] = (),
) -> tuple[Issue, Message]:
    """A public message written by the issue's requester, brought by `actor` (a chat
    widget, a portal, a bridge); it moves a solved or pending issue to open. A closed one
    refuses it."""
    check = Validator()
    clean_body = _body(check, body)
    files = attachments.checked_ids(check, attachment_ids)
    check.check()
    async with db.transaction() as connection:
        issue = await locked_issue(connection, workspace_id, issue_id)
        ensure_open_for_changes(issue.status, issue.merged_into)
        requester = await requester_of(connection, issue)
        said = Said(clean_body, PUBLIC, files, API)
        return await add_message(
            connection, actor, issue, requester_author(requester), said, customer_status(issue)
        )


_REQUESTER = select(*CONTACT_COLUMNS).where(
    contacts.c.workspace_id == bindparam("workspace_id"), contacts.c.id == bindparam("id")
)


async def requester_of(connection: Connection, issue: Issue) -> Contact:
    """The issue's requester, read in the caller's transaction."""
    parameters = {"workspace_id": issue.workspace_id, "id": issue.requester_id}
    [row] = await connection.rows(_REQUESTER, parameters)
    return Contact(*row)
