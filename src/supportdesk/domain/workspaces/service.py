"""Setting up a workspace: the tenant, its first org admin, and a Full-access key."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import insert, select

from supportdesk.auth.scopes import PRESETS
from supportdesk.db import Database
from supportdesk.db.tables import workspaces
from supportdesk.domain import audit
from supportdesk.domain.api_keys.service import CreatedKey, insert_api_key
from supportdesk.domain.clock import now
from supportdesk.domain.errors import FieldCode, not_found
from supportdesk.domain.events import record_events, snapshots
from supportdesk.domain.ids import new_id
from supportdesk.domain.machine_users.service import (
    MANAGED_DESCRIPTION,
    MANAGED_NAME,
    insert_machine_user,
)
from supportdesk.domain.members import ADMIN, Member
from supportdesk.domain.members.actions import insert_member
from supportdesk.domain.org_admins.service import hash_password_off_loop
from supportdesk.domain.validation import Validator


@dataclass(frozen=True, slots=True)
class Workspace:
    id: str
    name: str
    created_at: datetime


@dataclass(frozen=True, slots=True)
class InitialisedWorkspace:
    workspace: Workspace
    admin: Member
    admin_password: str
    key: CreatedKey


async def init_workspace(
    db: Database, name: str, admin_email: str, admin_password: str | None = None
) -> InitialisedWorkspace:
    """Create a workspace with its org admin, managed machine user and a Full-access key,
    in one transaction. A password is generated when none is given."""
    check = Validator()
    clean_name = check.text("workspace", name, 200, required=True)
    clean_email = check.email("adminEmail", admin_email, required=True)
    if admin_password is not None and len(admin_password) < 8:
        check.fail("adminPassword", FieldCode.INVALID, "adminPassword takes at least 8 characters.")
    check.check()
    assert clean_name is not None and clean_email is not None
    password = admin_password or secrets.token_urlsafe(12)
    password_hash = await hash_password_off_loop(password)
    moment = now()
    workspace = Workspace(new_id("Workspace", moment), clean_name, moment)
    async with db.transaction() as connection:
        await connection.execute(
            insert(workspaces).values(id=workspace.id, name=clean_name, created_at=moment)
        )
        admin = await insert_member(
            connection, workspace.id, clean_email, None, ADMIN, password_hash
        )
        managed = await insert_machine_user(
            connection, workspace.id, MANAGED_NAME, MANAGED_DESCRIPTION, managed=True
        )
        key = await insert_api_key(
            connection, workspace.id, managed.id, "Initial full-access key", PRESETS["full_access"]
        )
        await audit.record(
            connection,
            workspace.id,
            audit.CLI_ACTOR,
            "api_key.created",
            ("ApiKey", key.api_key.id),
            {"name": key.api_key.name, "scopes": list(key.api_key.scopes)},
        )
        await record_events(
            connection,
            workspace.id,
            audit.CLI_ACTOR,
            [
                ("member.created", {"member": snapshots.member(admin)}),
                ("machine_user.created", {"machineUser": snapshots.machine_user(managed)}),
                ("api_key.created", {"apiKey": snapshots.api_key(key.api_key, moment)}),
            ],
        )
    return InitialisedWorkspace(workspace, admin, password, key)


async def get_workspace(db: Database, workspace_id: str) -> Workspace:
    query = select(workspaces.c.id, workspaces.c.name, workspaces.c.created_at).where(
        workspaces.c.id == workspace_id
    )
    async with db.read() as connection:
        row = (await connection.execute(query)).mappings().first()
    if row is None:
        raise not_found("Workspace")
    return Workspace(**row)
