"""Invitation links: how a member chooses their password (a first one, or a new one).

A link is `/invitations/<workspace id>.<secret>`, shown once, valid 7 days, good for one
use. Only the SHA-256 of the secret is stored (as API key secrets are); the workspace id
in the link keeps every lookup within one workspace, as a session's cookie does. A newer
link of the same member replaces their unused ones. Using a link sets the password and
ends the member's sessions in that workspace, in one transaction.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete, insert, select, update

from supportdesk.db import Database
from supportdesk.db.connection import Connection
from supportdesk.db.tables import member_invitations, org_admin_sessions, org_admins, workspaces
from supportdesk.domain import audit
from supportdesk.domain.clock import now
from supportdesk.domain.ids import is_id_of
from supportdesk.domain.org_admins.service import (
    OrgAdmin,
    check_password,
    hash_password_off_loop,
)
from supportdesk.domain.validation import Validator

LIFETIME = timedelta(days=7)
PATH = "/invitations/"
_SECRET_BYTES = 32


@dataclass(frozen=True, slots=True)
class Invitation:
    """A link just made: its token is shown once, then only its hash remains."""

    token: str
    expires_at: datetime

    def url(self, base_url: str) -> str:
        return f"{base_url.rstrip('/')}{PATH}{self.token}"


@dataclass(frozen=True, slots=True)
class Invited:
    """Whom a usable link is for, as its page shows them."""

    member_id: str
    email: str
    name: str
    workspace_name: str
    expires_at: datetime


class InvitationUnusable(Exception):
    """A link that sets no password: `unknown` (never made, mistyped, replaced, or its
    member removed), `used` or `expired`."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def _parts(token: str) -> tuple[str, str]:
    """(workspace id, secret hash) of a token; InvitationUnusable("unknown") for one that
    cannot be ours."""
    workspace_id, _, secret = token.partition(".")
    if not is_id_of(workspace_id, "Workspace") or not 20 <= len(secret) <= 100:
        raise InvitationUnusable("unknown")
    return workspace_id, _digest(secret)


async def issue_invitation(connection: Connection, workspace_id: str, member_id: str) -> Invitation:
    """A new link for a member, inside the caller's transaction; their unused links stop
    working."""
    moment = now()
    secret = secrets.token_urlsafe(_SECRET_BYTES)
    invitation = Invitation(f"{workspace_id}.{secret}", moment + LIFETIME)
    await connection.execute(
        delete(member_invitations).where(
            member_invitations.c.workspace_id == workspace_id,
            member_invitations.c.member_id == member_id,
            member_invitations.c.used_at.is_(None),
        )
    )
    await connection.execute(
        insert(member_invitations).values(
            workspace_id=workspace_id,
            token_hash=_digest(secret),
            member_id=member_id,
            created_at=moment,
            expires_at=invitation.expires_at,
        )
    )
    return invitation


_INVITED = select(
    member_invitations.c.member_id,
    member_invitations.c.expires_at,
    member_invitations.c.used_at,
    org_admins.c.email,
    org_admins.c.name,
    org_admins.c.role,
    workspaces.c.name.label("workspace_name"),
).select_from(
    member_invitations.join(
        org_admins,
        (org_admins.c.workspace_id == member_invitations.c.workspace_id)
        & (org_admins.c.id == member_invitations.c.member_id),
    ).join(workspaces, workspaces.c.id == member_invitations.c.workspace_id)
)


def _usable(row: object | None) -> None:
    if row is None:
        raise InvitationUnusable("unknown")
    if row.used_at is not None:  # type: ignore[attr-defined]
        raise InvitationUnusable("used")
    if row.expires_at <= now():  # type: ignore[attr-defined]
        raise InvitationUnusable("expired")


async def open_invitation(db: Database, token: str) -> Invited:
    """Whom a link is for, while it can still be used; InvitationUnusable otherwise."""
    workspace_id, token_hash = _parts(token)
    query = _INVITED.where(
        member_invitations.c.workspace_id == workspace_id,
        member_invitations.c.token_hash == token_hash,
    )
    async with db.read() as connection:
        row = (await connection.execute(query)).first()
    _usable(row)
    assert row is not None
    return Invited(row.member_id, row.email, row.name, row.workspace_name, row.expires_at)


async def accept_invitation(
    db: Database, token: str, password: str, ip_address: str | None
) -> OrgAdmin:
    """Set the member's password from their link, once: the link is used up and every
    session of the member in the workspace ends (a reset locks out whoever had the old
    password). VALIDATION_FAILED for a password that is too short or too long (field
    `password`); InvitationUnusable when the link no longer works. Returns the seat, for
    the caller to log the member in."""
    workspace_id, token_hash = _parts(token)
    check = Validator()
    check_password(check, "password", password)
    check.check()
    password_hash = await hash_password_off_loop(password)
    async with db.transaction() as connection:
        row = (
            await connection.execute(
                _INVITED.where(
                    member_invitations.c.workspace_id == workspace_id,
                    member_invitations.c.token_hash == token_hash,
                ).with_for_update(of=member_invitations)
            )
        ).first()
        _usable(row)
        assert row is not None
        moment = now()
        await connection.execute(
            update(member_invitations)
            .where(
                member_invitations.c.workspace_id == workspace_id,
                member_invitations.c.token_hash == token_hash,
            )
            .values(used_at=moment)
        )
        await connection.execute(
            update(org_admins)
            .where(org_admins.c.workspace_id == workspace_id, org_admins.c.id == row.member_id)
            .values(password_hash=password_hash)
        )
        ended = await connection.execute(
            delete(org_admin_sessions).where(
                org_admin_sessions.c.workspace_id == workspace_id,
                org_admin_sessions.c.admin_id == row.member_id,
            )
        )
        actor = audit.Actor("org_admin", row.member_id, row.email, ip_address)
        await audit.record(
            connection,
            workspace_id,
            actor,
            "member.password_set",
            ("Member", row.member_id),
            {"sessions_ended": ended.rowcount},
        )
    return OrgAdmin(row.member_id, workspace_id, row.email, row.role)
