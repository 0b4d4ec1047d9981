"""Checking the logins of org admins: the members with role admin (members are added in
domain/members)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Row, select

from supportdesk.auth.passwords import hash_password, verify_password
from supportdesk.db.connection import Connection
from supportdesk.db.tables import org_admins, workspaces
from supportdesk.domain.errors import FieldCode
from supportdesk.domain.ids import is_id_of
from supportdesk.domain.validation import Validator

MIN_PASSWORD_LENGTH = 8
MAX_PASSWORD_LENGTH = 1024


@dataclass(frozen=True, slots=True)
class OrgAdmin:
    id: str
    workspace_id: str
    email: str
    role: str

    @property
    def is_admin(self) -> bool:
        return self.role == "admin"


@dataclass(frozen=True, slots=True)
class Membership:
    """A person's seat in one workspace, with the workspace's name for choosing."""

    admin: OrgAdmin
    workspace_name: str


def normalise_email(email: str) -> str:
    return email.strip().casefold()


def check_password(check: Validator, field: str, password: str | None) -> str | None:
    if password is None or not password:
        check.fail(field, FieldCode.REQUIRED)
    elif len(password) < MIN_PASSWORD_LENGTH:
        check.fail(field, FieldCode.INVALID)
    elif len(password) > MAX_PASSWORD_LENGTH:
        check.fail(field, FieldCode.TOO_LONG)
    return password


async def hash_password_off_loop(password: str) -> str:
    """Argon2id takes tens of milliseconds: hash before a transaction, in a thread."""
    return await asyncio.to_thread(hash_password, password)


# A person's seats with their workspace names; the session queries join onto it.
MEMBERSHIPS = select(
    org_admins.c.id,
    org_admins.c.workspace_id,
    org_admins.c.email,
    org_admins.c.role,
    org_admins.c.password_hash,
    workspaces.c.name.label("workspace_name"),
).join(workspaces, workspaces.c.id == org_admins.c.workspace_id)


async def verify_login(connection: Connection, email: str, password: str) -> list[Membership]:
    """The seats whose password matches, by workspace name; empty when the login is wrong.

    An unknown e-mail costs one password hash as a known one does, so timing does not tell
    which e-mails exist. The hashing runs off the event loop.
    """
    if len(password) > MAX_PASSWORD_LENGTH:
        return []
    rows = (
        await connection.execute(
            MEMBERSHIPS.where(org_admins.c.email_normalized == normalise_email(email)).order_by(
                workspaces.c.name, org_admins.c.workspace_id
            )
        )
    ).all()
    if not rows:
        await asyncio.to_thread(verify_password, None, password)
        return []
    matching = []
    for row in rows:
        if await asyncio.to_thread(verify_password, row.password_hash, password):
            matching.append(membership_of(row))
    return matching


async def get_membership(
    connection: Connection, workspace_id: str, admin_id: str
) -> Membership | None:
    """The person's seat as it is now (a removed person or a changed role holds at once)."""
    if not is_id_of(admin_id, "Member"):
        return None
    row = (
        await connection.execute(
            MEMBERSHIPS.where(
                org_admins.c.workspace_id == workspace_id, org_admins.c.id == admin_id
            )
        )
    ).first()
    return None if row is None else membership_of(row)


def membership_of(row: Row[*tuple[Any, ...]]) -> Membership:
    """The seat in a row of MEMBERSHIPS."""
    return Membership(OrgAdmin(row.id, row.workspace_id, row.email, row.role), row.workspace_name)
