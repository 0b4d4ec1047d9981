"""Creating org admins and checking their logins."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Row, insert, select
from sqlalchemy.exc import IntegrityError

from supportdesk.auth.passwords import hash_password, verify_password
from supportdesk.db import Database
from supportdesk.db.connection import Connection
from supportdesk.db.tables import org_admins, workspaces
from supportdesk.domain import audit
from supportdesk.domain.clock import now
from supportdesk.domain.errors import DomainError, ErrorCode, FieldCode, not_found
from supportdesk.domain.ids import is_id_of, new_id
from supportdesk.domain.validation import Validator

# "admin" may use the settings page; "agent" is a person of the workspace who may not.
ROLES = ("admin", "agent")
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


async def insert_org_admin(
    connection: Connection, workspace_id: str, email: str, password_hash: str, role: str
) -> OrgAdmin:
    moment = now()
    admin = OrgAdmin(new_id("OrgAdmin", moment), workspace_id, email, role)
    await connection.execute(
        insert(org_admins).values(
            workspace_id=workspace_id,
            id=admin.id,
            email=email,
            email_normalized=normalise_email(email),
            password_hash=password_hash,
            role=role,
            created_at=moment,
        )
    )
    return admin


async def create_org_admin(
    db: Database,
    actor: audit.Actor,
    workspace_id: str,
    email: str | None,
    password: str | None,
    role: str = "admin",
) -> OrgAdmin:
    """Add a person to a workspace; an e-mail is unique per workspace, ignoring case."""
    check = Validator()
    clean_email = check.email("email", email, required=True)
    check_password(check, "password", password)
    if role not in ROLES:
        check.fail("role", FieldCode.INVALID)
    check.check()
    assert clean_email is not None and password is not None
    password_hash = await hash_password_off_loop(password)
    try:
        async with db.transaction() as connection:
            exists = await connection.scalar(
                select(workspaces.c.id).where(workspaces.c.id == workspace_id)
            )
            if exists is None:
                raise not_found("Workspace")
            admin = await insert_org_admin(
                connection, workspace_id, clean_email, password_hash, role
            )
            await audit.record(
                connection,
                workspace_id,
                actor,
                "org_admin.created",
                ("OrgAdmin", admin.id),
                {"email": clean_email, "role": role},
            )
    except IntegrityError:
        raise DomainError(
            ErrorCode.ALREADY_EXISTS, f"{clean_email} already belongs to this workspace."
        ) from None
    return admin


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
    if not is_id_of(admin_id, "OrgAdmin"):
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
