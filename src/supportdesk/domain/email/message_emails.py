"""The e-mail side of a message (`Message.email`): its Message-ID, what became of it, and
for mail received the text before its quoted history was trimmed."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import insert, select

from supportdesk.db import Database
from supportdesk.db.connection import Connection
from supportdesk.db.tables import message_emails

INBOUND = "inbound"
OUTBOUND = "outbound"
# The status of mail received; outbound mail is queued, then sent or failed.
RECEIVED = "received"


@dataclass(frozen=True, slots=True)
class MessageEmail:
    message_id: str
    mailbox_id: str | None
    direction: str
    # The Message-ID header without its angle brackets.
    message_key: str
    status: str
    original_text: str | None
    html: str | None
    error: str | None
    created_at: datetime


_COLUMNS = (
    message_emails.c.id,
    message_emails.c.mailbox_id,
    message_emails.c.direction,
    message_emails.c.message_key,
    message_emails.c.status,
    message_emails.c.original_text,
    message_emails.c.html,
    message_emails.c.error,
    message_emails.c.created_at,
)


async def record_message_email(
    connection: Connection, workspace_id: str, email: MessageEmail
) -> None:
    """Write a message's e-mail side in the caller's transaction (the message's own)."""
    values = {
        column.name: getattr(email, field) for column, field in zip(_COLUMNS, _FIELDS, strict=True)
    }
    # One statement built once (compiled once per set of columns), sent with the
    # transaction's next statement on PostgreSQL.
    await connection.write(_INSERT, {"workspace_id": workspace_id, **values})


_FIELDS = tuple(MessageEmail.__dataclass_fields__)
_INSERT = insert(message_emails)


async def emails_of_messages(
    db: Database, workspace_id: str, message_ids: Sequence[str]
) -> dict[str, MessageEmail | None]:
    """Each message's e-mail side; None for a message that never was mail."""
    found: dict[str, MessageEmail | None] = dict.fromkeys(message_ids)
    if not message_ids:
        return found
    query = select(*_COLUMNS).where(
        message_emails.c.workspace_id == workspace_id, message_emails.c.id.in_(message_ids)
    )
    async with db.read() as connection:
        for row in await connection.execute(query):
            found[row[0]] = MessageEmail(*row)
    return found
