"""No mail loops (RFC 3834, docs/email.md): mail a machine sent (an auto-responder, a
bounce, a list, our own mail come back) never gets an automatic answer, and opens at most
one issue per sender an hour; more of it is kept raw and ignored."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import func, select

from supportdesk.db.connection import Connection
from supportdesk.db.tables import inbound_emails

WINDOW = timedelta(hours=1)
# The status of a kept message that opened an issue (models.py names every status).
CREATED = "created"
OUR_OWN = "sent by one of our mailboxes"


async def opened_lately(
    connection: Connection, workspace_id: str, sender: str, at: datetime
) -> bool:
    """Whether automatic mail from `sender` opened an issue within the last hour."""
    query = (
        select(func.count())
        .select_from(inbound_emails)
        .where(
            inbound_emails.c.workspace_id == workspace_id,
            inbound_emails.c.sender == sender,
            inbound_emails.c.received_at > at - WINDOW,
            inbound_emails.c.automatic.is_(True),
            inbound_emails.c.status == CREATED,
        )
    )
    return int(await connection.scalar(query) or 0) > 0
