"""What the pipeline kept of each message (the raw mail's rows), read from the server's
database: the SMTP door answers 250 and no more, so the tests look there."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select

from supportdesk.db.tables import inbound_emails
from tests.email.conftest import MailboxFixture


@dataclass(frozen=True)
class Kept:
    id: str
    status: str
    issue_id: str | None
    message_id: str | None
    reason: str | None
    message_key: str
    automatic: bool
    size_bytes: int
    raw: bytes


def kept_mail(mailbox: MailboxFixture) -> list[Kept]:
    """Every message the mailbox kept, oldest first."""
    server = mailbox.workspace.server
    query = (
        select(
            inbound_emails.c.id,
            inbound_emails.c.status,
            inbound_emails.c.issue_id,
            inbound_emails.c.message_id,
            inbound_emails.c.reason,
            inbound_emails.c.message_key,
            inbound_emails.c.automatic,
            inbound_emails.c.size_bytes,
            inbound_emails.c.raw,
        )
        .where(
            inbound_emails.c.workspace_id == mailbox.workspace.id,
            inbound_emails.c.mailbox_id == mailbox.id,
        )
        .order_by(inbound_emails.c.id)
    )

    async def read() -> list[Kept]:
        async with server.db.read() as connection:
            return [Kept(*row) for row in await connection.execute(query)]

    return server.call(read())
