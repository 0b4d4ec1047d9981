"""Which issue a message joins, in the order of docs/email.md: a signed issue token in a
recipient's plus part; any Message-ID it answers that is one of ours (received or sent);
`[#N]` in the subject when the sender is that issue's requester. None: a new issue."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import bindparam, select

from supportdesk.db.connection import Connection
from supportdesk.db.tables import issues, message_emails, messages
from supportdesk.domain.email import issue_tokens
from supportdesk.domain.email.message_emails import OUTBOUND
from supportdesk.domain.email.reading import ReadMail
from supportdesk.domain.issues.actions import locked_issue, requester_of
from supportdesk.domain.issues.models import ISSUE_COLUMNS, Issue, issue_of
from supportdesk.domain.mailboxes.models import Mailbox
from supportdesk.domain.mailboxes.queries import base_address, plus_part

_TICKET_IN_SUBJECT = re.compile(r"\[#(\d{1,9})\]")
# A merged issue's thread went to another: mail follows it, a few hops at most.
_MOST_HOPS = 5


@dataclass(frozen=True, slots=True)
class Match:
    issue: Issue
    # "token", "headers" or "subject".
    by: str


async def _by_number(connection: Connection, workspace_id: str, number: int) -> Issue | None:
    query = (
        select(*ISSUE_COLUMNS)
        .where(issues.c.workspace_id == workspace_id, issues.c.ticket_number == number)
        .with_for_update()
    )
    row = (await connection.execute(query)).first()
    return issue_of(row) if row is not None else None


_MOST_TOKENS = 5


async def _by_token(
    connection: Connection, mailbox: Mailbox, recipients: Sequence[str], key: bytes
) -> Issue | None:
    tokens = []
    for recipient in dict.fromkeys(recipients):
        token = plus_part(recipient) if base_address(recipient) == mailbox.address else None
        parsed = issue_tokens.ticket_number_of(token) if token else None
        if parsed is not None:
            tokens.append(parsed)
    # Each is a locked read: of a mail naming hundreds of tokens, a few are looked at.
    for parsed in tokens[:_MOST_TOKENS]:
        issue = await _by_number(connection, mailbox.workspace_id, parsed[0])
        if issue is not None and issue_tokens.is_signed(
            key, mailbox.workspace_id, issue.id, parsed[1]
        ):
            return issue
    return None


# Built once: compiled once, its IN-list expanded for each message's ids. It starts from the
# ids (ix_message_emails_key) and looks each one's message up by key: as a join, SQLite's
# planner (no statistics) went through every message of the workspace instead, a cost that
# grew with the workspace (5.8 to 9 ms a message over 6,000 messages in the bench).
_ISSUE_OF_MESSAGE = (
    select(messages.c.issue_id)
    .where(
        messages.c.workspace_id == bindparam("workspace_id"),
        messages.c.id == message_emails.c.id,
    )
    .scalar_subquery()
)
# A Message-ID is the sender's to choose: mail may reuse one already recorded (ours, or a
# customer's earlier mail to another mailbox) to pull the thread's answers into another
# issue. Of the messages with one key, ours come first, then the earliest received.
_ANSWERED = (
    select(message_emails.c.message_key, _ISSUE_OF_MESSAGE)
    .where(
        message_emails.c.workspace_id == bindparam("workspace_id"),
        message_emails.c.message_key.in_(bindparam("keys", expanding=True)),
    )
    .order_by(
        (message_emails.c.direction == OUTBOUND).desc(),
        message_emails.c.created_at,
        message_emails.c.id,
    )
)


async def _by_headers(
    connection: Connection, workspace_id: str, answers: Sequence[str]
) -> Issue | None:
    if not answers:
        return None
    parameters = {"workspace_id": workspace_id, "keys": list(answers)}
    rows = await connection.rows(_ANSWERED, parameters)
    found: dict[str, str] = {}
    for key, issue_id in rows:
        if issue_id is not None:
            found.setdefault(str(key), str(issue_id))
    # The nearest ancestor first: In-Reply-To, then References from the newest.
    for key in answers:
        if key in found:
            return await locked_issue(connection, workspace_id, found[key])
    return None


async def _by_subject(connection: Connection, workspace_id: str, mail: ReadMail) -> Issue | None:
    found = _TICKET_IN_SUBJECT.search(mail.subject)
    if found is None:
        return None
    issue = await _by_number(connection, workspace_id, int(found.group(1)))
    if issue is None:
        return None
    requester = await requester_of(connection, issue)
    return issue if requester.email.lower() == mail.sender.lower() else None


async def _followed(connection: Connection, issue: Issue) -> Issue:
    for _ in range(_MOST_HOPS):
        if issue.merged_into is None:
            break
        issue = await locked_issue(connection, issue.workspace_id, issue.merged_into)
    return issue


async def thread_of(
    connection: Connection,
    mailbox: Mailbox,
    mail: ReadMail,
    recipients: Sequence[str],
    key: bytes,
) -> Match | None:
    """The issue the mail joins (locked until the transaction ends), and how it was found."""
    workspace_id = mailbox.workspace_id
    issue = await _by_token(connection, mailbox, recipients, key)
    by = "token"
    if issue is None:
        issue, by = await _by_headers(connection, workspace_id, mail.answers), "headers"
    if issue is None:
        issue, by = await _by_subject(connection, workspace_id, mail), "subject"
    return Match(await _followed(connection, issue), by) if issue is not None else None
