"""Mail a mailbox could not file: kept raw with the reason, for a person to look at (an
unreadable message, or one whose filing failed). The newest first, and each one's raw
bytes to download."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import bindparam, literal_column, select

from supportdesk.db import Database
from supportdesk.db.tables import inbound_emails
from supportdesk.domain.email.pipeline import PARKED

# What the mailbox's page lists; older parked mail stays kept, unlisted.
LISTED = 50


@dataclass(frozen=True, slots=True)
class ParkedMail:
    id: str
    door: str
    sender: str | None
    subject: str | None
    size_bytes: int
    reason: str | None
    received_at: datetime


_OF_MAILBOX = (
    inbound_emails.c.workspace_id == bindparam("workspace_id"),
    inbound_emails.c.mailbox_id == bindparam("mailbox_id"),
    # Written into the statement, not bound: a generic plan then still matches the
    # partial index on parked rows.
    inbound_emails.c.status == literal_column(f"'{PARKED}'"),
)
_LIST = (
    select(
        inbound_emails.c.id,
        inbound_emails.c.door,
        inbound_emails.c.sender,
        inbound_emails.c.subject,
        inbound_emails.c.size_bytes,
        inbound_emails.c.reason,
        inbound_emails.c.received_at,
    )
    .where(*_OF_MAILBOX)
    .order_by(inbound_emails.c.received_at.desc(), inbound_emails.c.id.desc())
    .limit(LISTED + 1)
)
_RAW = select(inbound_emails.c.raw).where(*_OF_MAILBOX, inbound_emails.c.id == bindparam("id"))


async def parked_mail(
    db: Database, workspace_id: str, mailbox_id: str
) -> tuple[list[ParkedMail], bool]:
    """The mailbox's newest parked mail, at most `LISTED`, and whether there is more."""
    parameters = {"workspace_id": workspace_id, "mailbox_id": mailbox_id}
    async with db.read() as connection:
        rows = await connection.rows(_LIST, parameters)
    return [ParkedMail(*row) for row in rows[:LISTED]], len(rows) > LISTED


async def parked_raw(
    db: Database, workspace_id: str, mailbox_id: str, parked_id: str
) -> bytes | None:
    """One parked message as it came, None when the mailbox parked no such message."""
    parameters = {"workspace_id": workspace_id, "mailbox_id": mailbox_id, "id": parked_id}
    async with db.read() as connection:
        raw = await connection.scalar(_RAW, parameters)
    return bytes(raw) if raw is not None else None
