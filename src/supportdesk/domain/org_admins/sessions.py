"""Settings-page sessions, kept on the server so that ending one holds at once.

A signed cookie alone stays valid until it expires, whoever copied it. So a login is also a
row per seat it covers, keyed by the SHA-256 of a random session id that only the cookie
carries; every settings request finds its seat through that row (one primary-key lookup
joined to the seat), and deleting the row ends the session in every process.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import and_, delete, insert, select

from supportdesk.db import Database
from supportdesk.db.tables import org_admin_sessions, org_admins, workspaces
from supportdesk.domain import audit
from supportdesk.domain.clock import now
from supportdesk.domain.ids import is_id_of
from supportdesk.domain.org_admins.service import (
    MEMBERSHIPS,
    Membership,
    OrgAdmin,
    membership_of,
)

_SESSION_ID_BYTES = 32


def _digest(session_id: str) -> str:
    return hashlib.sha256(session_id.encode()).hexdigest()


# The seats of MEMBERSHIPS that a live session covers.
_LIVE_SEATS = MEMBERSHIPS.join(
    org_admin_sessions,
    and_(
        org_admin_sessions.c.workspace_id == org_admins.c.workspace_id,
        org_admin_sessions.c.admin_id == org_admins.c.id,
    ),
)


async def start_session(db: Database, seats: Sequence[OrgAdmin], lifetime: timedelta) -> str:
    """Open a session covering `seats` (a person who just proved their password) and return
    its id, for the cookie only. Expired sessions of the same workspaces go in passing, so
    the table holds little more than the live ones."""
    session_id = secrets.token_urlsafe(_SESSION_ID_BYTES)
    moment = now()
    rows = [
        {
            "workspace_id": seat.workspace_id,
            "session_hash": _digest(session_id),
            "admin_id": seat.id,
            "created_at": moment,
            "expires_at": moment + lifetime,
        }
        for seat in seats
    ]
    async with db.transaction() as connection:
        await connection.execute(
            delete(org_admin_sessions).where(
                org_admin_sessions.c.workspace_id.in_([seat.workspace_id for seat in seats]),
                org_admin_sessions.c.expires_at <= moment,
            )
        )
        await connection.execute(insert(org_admin_sessions), rows)
    return session_id


async def session_membership(
    db: Database, session_id: str, workspace_id: str, admin_id: str
) -> Membership | None:
    """The seat a session is using, as it is now; None when the session has ended or
    expired, or the person is gone."""
    if not is_id_of(admin_id, "Member"):
        return None
    query = _LIVE_SEATS.where(
        org_admin_sessions.c.workspace_id == workspace_id,
        org_admin_sessions.c.session_hash == _digest(session_id),
        org_admin_sessions.c.admin_id == admin_id,
        org_admin_sessions.c.expires_at > now(),
    )
    async with db.read() as connection:
        row = (await connection.execute(query)).first()
    return None if row is None else membership_of(row)


@dataclass(frozen=True, slots=True)
class SeatInUse:
    """The seat a long request (an inbox's live stream) holds, by its session's digest:
    the session id itself is not kept. The role it was opened with is part of it: what
    a stream carries depends on the role, so a changed role ends it."""

    workspace_id: str
    admin_id: str
    session_hash: str
    role: str

    @classmethod
    def of(cls, session_id: str, workspace_id: str, admin_id: str, role: str) -> SeatInUse:
        return cls(workspace_id, admin_id, _digest(session_id), role)

    @property
    def identity(self) -> str:
        return f"{self.workspace_id} {self.admin_id} {self.session_hash} {self.role}"


async def seats_still_in_use(db: Database, seats: Sequence[SeatInUse]) -> set[str]:
    """The identities of those seats whose session has not ended or expired and whose
    person is still a member in the same role: one statement for all of a process's live
    streams."""
    if not seats:
        return set()
    query = (
        select(
            org_admin_sessions.c.workspace_id,
            org_admin_sessions.c.admin_id,
            org_admin_sessions.c.session_hash,
            org_admins.c.role,
        )
        .join(
            org_admins,
            and_(
                org_admins.c.workspace_id == org_admin_sessions.c.workspace_id,
                org_admins.c.id == org_admin_sessions.c.admin_id,
            ),
        )
        .where(
            org_admin_sessions.c.workspace_id.in_({seat.workspace_id for seat in seats}),
            org_admin_sessions.c.session_hash.in_({seat.session_hash for seat in seats}),
            org_admin_sessions.c.expires_at > now(),
        )
    )
    async with db.read() as connection:
        rows = (await connection.execute(query)).all()
    return {
        SeatInUse(row.workspace_id, row.admin_id, row.session_hash, row.role).identity
        for row in rows
    }


async def session_memberships(
    db: Database, session_id: str, workspace_ids: Sequence[str]
) -> list[Membership]:
    """The seats a live session still covers among `workspace_ids`, by workspace name."""
    query = _LIVE_SEATS.where(
        org_admin_sessions.c.workspace_id.in_(workspace_ids),
        org_admin_sessions.c.session_hash == _digest(session_id),
        org_admin_sessions.c.expires_at > now(),
    ).order_by(workspaces.c.name, org_admin_sessions.c.workspace_id)
    async with db.read() as connection:
        return [membership_of(row) for row in (await connection.execute(query)).all()]


async def end_session(db: Database, session_id: str, workspace_ids: Sequence[str]) -> None:
    """Log out: the session ends in all of its workspaces; a copy of its cookie opens nothing."""
    async with db.transaction() as connection:
        await connection.execute(
            delete(org_admin_sessions).where(
                org_admin_sessions.c.workspace_id.in_(workspace_ids),
                org_admin_sessions.c.session_hash == _digest(session_id),
            )
        )


async def end_admin_sessions(
    db: Database, actor: audit.Actor, workspace_id: str, admin_id: str
) -> int:
    """End every session of one person in one workspace, at once (after a password change,
    or before removing them); their seats in other workspaces keep theirs. Audited; returns
    how many sessions ended."""
    async with db.transaction() as connection:
        result = await connection.execute(
            delete(org_admin_sessions).where(
                org_admin_sessions.c.workspace_id == workspace_id,
                org_admin_sessions.c.admin_id == admin_id,
            )
        )
        ended = result.rowcount
        await audit.record(
            connection,
            workspace_id,
            actor,
            "org_admin.sessions_ended",
            ("Member", admin_id),
            {"sessions": ended},
        )
    return ended
