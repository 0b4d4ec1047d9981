"""Which mailboxes are polled, and where each one's polling got to: the last UID taken
under a UIDVALIDITY, for the (shown) URL it was taken from. A checkpoint of another URL or
another UIDVALIDITY is no checkpoint: the folder is read from its beginning again, and
Message-ID idempotency keeps what was taken before from being filed twice."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import and_, func, not_, or_, select, update

from supportdesk.db import Database
from supportdesk.db.connection import Connection
from supportdesk.db.tables import mailboxes
from supportdesk.domain.clock import now
from supportdesk.domain.mailboxes.models import MAILBOX_COLUMNS, Mailbox, mailbox_of


@dataclass(frozen=True, slots=True)
class Polled:
    """A mailbox to poll, its sealed URL and its checkpoint."""

    mailbox: Mailbox
    sealed_url: str
    checkpoint_of: str | None
    uid_validity: int | None
    last_uid: int | None

    def last_uid_under(self, uid_validity: int) -> int:
        """The UID to go on after: 0 (the beginning) unless the checkpoint still holds."""
        holds = (
            self.checkpoint_of == self.mailbox.imap_url
            and self.uid_validity == uid_validity
            and self.last_uid is not None
        )
        return self.last_uid if holds and self.last_uid is not None else 0


async def polled_mailboxes(db: Database) -> list[tuple[str, str]]:
    """(workspace id, mailbox id) of every mailbox with an IMAP URL, of every workspace."""
    query = select(mailboxes.c.workspace_id, mailboxes.c.id).where(
        mailboxes.c.imap_url_sealed.is_not(None)
    )
    async with db.read() as connection:
        return [(row[0], row[1]) for row in await connection.execute(query)]


async def polled(db: Database, workspace_id: str, mailbox_id: str) -> Polled | None:
    """The mailbox as it is now; None when it is gone or has no IMAP URL any more."""
    query = select(
        *MAILBOX_COLUMNS,
        mailboxes.c.imap_url_sealed,
        mailboxes.c.imap_checkpoint_of,
        mailboxes.c.imap_uid_validity,
        mailboxes.c.imap_last_uid,
    ).where(mailboxes.c.workspace_id == workspace_id, mailboxes.c.id == mailbox_id)
    async with db.read() as connection:
        row = (await connection.execute(query)).first()
    if row is None or row[-4] is None:
        return None
    width = len(MAILBOX_COLUMNS)
    return Polled(mailbox_of(row[:width]), *row[width:])


async def lease(db: Database, workspace_id: str, mailbox_id: str, seconds: float) -> bool:
    """Take the mailbox's polling for `seconds` unless another dispatcher holds it: several
    dispatchers over one database do not log in and fetch the same mail side by side. A
    lease outlived (a crash, a poll longer than it) only lets the work be done twice, which
    the checkpoint and Message-ID idempotency make harmless."""
    moment = now()
    async with db.transaction() as connection:
        taken = await connection.execute(
            update(mailboxes)
            .where(
                mailboxes.c.workspace_id == workspace_id,
                mailboxes.c.id == mailbox_id,
                or_(mailboxes.c.imap_lease_until.is_(None), mailboxes.c.imap_lease_until < moment),
            )
            .values(imap_lease_until=moment + timedelta(seconds=seconds))
        )
        return bool(taken.rowcount)


async def release(db: Database, workspace_id: str, mailbox_id: str) -> None:
    async with db.transaction() as connection:
        await connection.execute(
            update(mailboxes)
            .where(mailboxes.c.workspace_id == workspace_id, mailboxes.c.id == mailbox_id)
            .values(imap_lease_until=None)
        )


async def advance(connection: Connection, mailbox: Mailbox, uid_validity: int, uid: int) -> None:
    """Record that `uid` was taken; never moves back within one URL and UIDVALIDITY (two
    pollers of one mailbox may race: the further one stands)."""
    assert mailbox.imap_url is not None
    already_further = and_(
        func.coalesce(mailboxes.c.imap_checkpoint_of, "") == mailbox.imap_url,
        func.coalesce(mailboxes.c.imap_uid_validity, -1) == uid_validity,
        func.coalesce(mailboxes.c.imap_last_uid, -1) >= uid,
    )
    await connection.execute(
        update(mailboxes)
        .where(
            mailboxes.c.workspace_id == mailbox.workspace_id,
            mailboxes.c.id == mailbox.id,
            not_(already_further),
        )
        .values(
            imap_checkpoint_of=mailbox.imap_url,
            imap_uid_validity=uid_validity,
            imap_last_uid=uid,
        )
    )


async def advance_alone(db: Database, mailbox: Mailbox, uid_validity: int, uid: int) -> None:
    """The same, in a transaction of its own: for a message that kept nothing new (a
    duplicate, one too large, one gone from the server)."""
    async with db.transaction() as connection:
        await advance(connection, mailbox, uid_validity, uid)
