"""What a workspace's mailboxes have been doing, for the people who run them: the mail each
door brought in (how much, and when last), and where IMAP polling got to."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import func, select

from supportdesk.db import Database
from supportdesk.db.tables import inbound_emails, mailboxes
from supportdesk.domain.clock import now


@dataclass(frozen=True, slots=True)
class DoorActivity:
    """The mail one door brought to one mailbox: how many messages, the latest when."""

    count: int
    last_received_at: datetime


@dataclass(frozen=True, slots=True)
class ImapProgress:
    """Where polling got to: the last UID taken, for the URL it was taken from (another
    URL starts over), and until when a dispatcher holds the mailbox's polling."""

    checkpoint_of: str | None
    uid_validity: int | None
    last_uid: int | None
    lease_until: datetime | None

    def state(self, imap_url: str | None) -> str:
        """`off` (no IMAP URL), `polling` (a dispatcher is at it), `polled` (mail taken
        from this URL) or `waiting` (nothing taken from this URL yet)."""
        if imap_url is None:
            return "off"
        if self.lease_until is not None and self.lease_until > now():
            return "polling"
        if self.checkpoint_of == imap_url and self.last_uid is not None:
            return "polled"
        return "waiting"


@dataclass(frozen=True, slots=True)
class MailboxActivity:
    doors: dict[str, DoorActivity] = field(default_factory=dict)
    imap: ImapProgress = ImapProgress(None, None, None, None)

    @property
    def last_door(self) -> str | None:
        """The door of the latest message, None before the first."""
        if not self.doors:
            return None
        return max(self.doors, key=lambda door: self.doors[door].last_received_at)

    @property
    def received(self) -> int:
        return sum(door.count for door in self.doors.values())


async def mailbox_activity(
    db: Database, workspace_id: str, mailbox_ids: Sequence[str]
) -> dict[str, MailboxActivity]:
    """Each mailbox's activity, by id (a mailbox of another workspace is not there)."""
    doors = (
        select(
            inbound_emails.c.mailbox_id,
            inbound_emails.c.door,
            func.count(),
            func.max(inbound_emails.c.received_at),
        )
        .where(
            inbound_emails.c.workspace_id == workspace_id,
            inbound_emails.c.mailbox_id.in_(mailbox_ids),
        )
        .group_by(inbound_emails.c.mailbox_id, inbound_emails.c.door)
    )
    progress = select(
        mailboxes.c.id,
        mailboxes.c.imap_checkpoint_of,
        mailboxes.c.imap_uid_validity,
        mailboxes.c.imap_last_uid,
        mailboxes.c.imap_lease_until,
    ).where(mailboxes.c.workspace_id == workspace_id, mailboxes.c.id.in_(mailbox_ids))
    async with db.read() as connection:
        door_rows = (await connection.execute(doors)).all()
        progress_rows = (await connection.execute(progress)).all()
    found: dict[str, dict[str, DoorActivity]] = {}
    for mailbox_id, door, count, last in door_rows:
        found.setdefault(mailbox_id, {})[door] = DoorActivity(int(count), last)
    return {
        row[0]: MailboxActivity(found.get(row[0], {}), ImapProgress(*row[1:]))
        for row in progress_rows
    }
