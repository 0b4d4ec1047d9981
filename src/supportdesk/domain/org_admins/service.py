"""Checking the logins of members, agents and admins alike (members are added in
domain/members); only admins reach the settings."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Row, select

from supportdesk.auth.passwords import hash_password, verify_password
from supportdesk.db import Database
from supportdesk.db.tables import org_admins, workspaces
from supportdesk.domain.errors import FieldCode
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
        note = f"{field} takes at least {MIN_PASSWORD_LENGTH} characters."
        check.fail(field, FieldCode.INVALID, note)
    elif len(password) > MAX_PASSWORD_LENGTH:
        note = f"{field} takes at most {MAX_PASSWORD_LENGTH} characters."
        check.fail(field, FieldCode.TOO_LONG, note)
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


async def verify_login(db: Database, email: str, password: str) -> list[Membership]:
    """The seats whose password matches, by workspace name; empty when the login is wrong.

    An unknown e-mail costs one password hash as a known one does, so timing does not tell
    which e-mails exist. The hashing runs off the event loop.
    """
    if len(password) > MAX_PASSWORD_LENGTH:
        return []
    query = MEMBERSHIPS.where(org_admins.c.email_normalized == normalise_email(email))
    async with db.read() as connection:
        rows = (
            await connection.execute(query.order_by(workspaces.c.name, org_admins.c.workspace_id))
        ).all()
    if not rows:
        await asyncio.to_thread(verify_password, None, password)
        return []
    matching = []
    for row in rows:
        if await asyncio.to_thread(verify_password, row.password_hash, password):
            matching.append(membership_of(row))
    return matching


def membership_of(row: Row[*tuple[Any, ...]]) -> Membership:
    """The seat in a row of MEMBERSHIPS."""
    return Membership(OrgAdmin(row.id, row.workspace_id, row.email, row.role), row.workspace_name)
