"""Telling a workspace that its person's e-mail is locked out of logging in.

The e-mail-wide lock of the login throttle trips only when wrong passwords for one e-mail
come from many client addresses: a spread-out guessing attack, or a denial of the real
person's logins. Either way their workspaces' admins should see it in the audit log.
"""

from __future__ import annotations

from sqlalchemy import select

from supportdesk.db import Database
from supportdesk.db.tables import org_admins
from supportdesk.domain import audit
from supportdesk.domain.org_admins.service import normalise_email


async def record_login_lock(
    db: Database, email: str, address: str | None, failures: int, window_seconds: int
) -> int:
    """Audit the lock in every workspace where the e-mail has a seat (none for an unknown
    e-mail); returns how many events were written."""
    seats = select(org_admins.c.workspace_id, org_admins.c.id).where(
        org_admins.c.email_normalized == normalise_email(email)
    )
    actor = audit.Actor("anonymous", None, "failed logins", address)
    data = {"email": email.strip(), "failures": failures, "window_seconds": window_seconds}
    async with db.transaction() as connection:
        rows = (await connection.execute(seats)).all()
        for row in rows:
            await audit.record(
                connection,
                row.workspace_id,
                actor,
                "org_admin.login_locked",
                ("Member", row.id),
                data,
            )
    return len(rows)
