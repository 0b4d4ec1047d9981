"""Creating, renaming and listing machine users."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import insert, select
from sqlalchemy.exc import IntegrityError

from supportdesk.db import Database
from supportdesk.db.connection import Connection
from supportdesk.db.locking import locked_row
from supportdesk.db.tables import machine_users
from supportdesk.domain import audit
from supportdesk.domain.clock import now
from supportdesk.domain.counting import count_rows
from supportdesk.domain.errors import DomainError, ErrorCode, not_found
from supportdesk.domain.events import record_events, snapshots
from supportdesk.domain.ids import is_id_of, new_id
from supportdesk.domain.pagination import Page, PageRequest, page_of
from supportdesk.domain.per_parent import ById
from supportdesk.domain.rows import updated_row
from supportdesk.domain.validation import Validator

MANAGED_NAME = "Workspace API"
MANAGED_DESCRIPTION = "Managed by supportdesk: keys made in Settings → API and on the command line."


@dataclass(frozen=True, slots=True)
class MachineUser:
    id: str
    workspace_id: str
    name: str
    description: str
    managed: bool
    created_at: datetime
    updated_at: datetime


_COLUMNS = (
    machine_users.c.id,
    machine_users.c.workspace_id,
    machine_users.c.name,
    machine_users.c.description,
    machine_users.c.managed,
    machine_users.c.created_at,
    machine_users.c.updated_at,
)


def _validated(
    name: str | None, description: str | None, *, creating: bool
) -> tuple[str | None, str | None]:
    check = Validator()
    clean_name = check.text("name", name, 100, required=creating or name is not None)
    clean_description = check.text("description", description, 500, required=False)
    check.check()
    return clean_name, clean_description


def _already_exists(name: str) -> DomainError:
    return DomainError(ErrorCode.ALREADY_EXISTS, f"A machine user named {name!r} already exists.")


async def insert_machine_user(
    connection: Connection,
    workspace_id: str,
    name: str,
    description: str,
    *,
    managed: bool,
) -> MachineUser:
    moment = now()
    user = MachineUser(
        new_id("MachineUser", moment), workspace_id, name, description, managed, moment, moment
    )
    await connection.execute(
        insert(machine_users).values(
            workspace_id=workspace_id,
            id=user.id,
            name=name,
            name_normalized=name.casefold(),
            description=description,
            managed=managed,
            created_at=moment,
            updated_at=moment,
        )
    )
    return user


async def create_machine_user(
    db: Database, actor: audit.Actor, workspace_id: str, name: str | None, description: str | None
) -> MachineUser:
    """A new API principal; names are unique in a workspace, ignoring case."""
    clean_name, clean_description = _validated(name, description, creating=True)
    assert clean_name is not None
    try:
        async with db.transaction() as connection:
            user = await insert_machine_user(
                connection, workspace_id, clean_name, clean_description or "", managed=False
            )
            await audit.record(
                connection,
                workspace_id,
                actor,
                "machine_user.created",
                ("MachineUser", user.id),
                {"name": clean_name},
            )
            await record_events(
                connection,
                workspace_id,
                actor,
                [("machine_user.created", {"machineUser": snapshots.machine_user(user)})],
            )
    except IntegrityError:
        raise _already_exists(clean_name) from None
    return user


async def update_machine_user(
    db: Database,
    actor: audit.Actor,
    workspace_id: str,
    machine_user_id: str,
    name: str | None,
    description: str | None,
) -> MachineUser:
    """Change what is given (name, description)."""
    clean_name, clean_description = _validated(name, description, creating=False)
    if not is_id_of(machine_user_id, "MachineUser"):
        raise not_found("Machine user")
    changes: dict[str, object] = {"updated_at": now()}
    if clean_name is not None:
        changes.update(name=clean_name, name_normalized=clean_name.casefold())
    if description is not None:
        changes["description"] = clean_description or ""
    try:
        async with db.transaction() as connection:
            before = await _locked_machine_user(connection, workspace_id, machine_user_id)
            row = await updated_row(
                connection, machine_users, _COLUMNS, workspace_id, machine_user_id, **changes
            )
            await audit.record(
                connection,
                workspace_id,
                actor,
                "machine_user.updated",
                ("MachineUser", machine_user_id),
                {
                    key: value
                    for key, value in (("name", clean_name), ("description", clean_description))
                    if value is not None
                },
            )
            after = MachineUser(**row._mapping)
            snapshot = snapshots.machine_user(after)
            changed = snapshots.changes(snapshots.machine_user(before), snapshot)
            if changed:
                await record_events(
                    connection,
                    workspace_id,
                    actor,
                    [("machine_user.updated", {"machineUser": snapshot, "changes": changed})],
                )
    except IntegrityError:
        raise _already_exists(clean_name or "") from None
    return after


async def _locked_machine_user(
    connection: Connection, workspace_id: str, machine_user_id: str
) -> MachineUser:
    row = await locked_row(connection, machine_users, _COLUMNS, workspace_id, machine_user_id)
    if row is None:
        raise not_found("Machine user")
    return MachineUser(**row._mapping)


async def list_machine_users(
    db: Database, workspace_id: str, page: PageRequest
) -> Page[MachineUser]:
    query = select(*_COLUMNS).where(machine_users.c.workspace_id == workspace_id)
    if page.after:
        query = query.where(machine_users.c.id > page.after)
    query = query.order_by(machine_users.c.id).limit(page.first + 1)
    async with db.read() as connection:
        rows = (await connection.execute(query)).mappings().all()
    return page_of([MachineUser(**row) for row in rows], page.first)


async def count_machine_users(db: Database, workspace_id: str) -> int:
    return await count_rows(db, machine_users, workspace_id)


_MACHINE_USERS = ById(_COLUMNS, MachineUser)


async def get_machine_users(
    db: Database, workspace_id: str, ids: Sequence[str]
) -> dict[str, MachineUser]:
    """Machine users by id, one statement for any number of them."""
    return await _MACHINE_USERS.fetch(db, workspace_id, ids)


async def managed_machine_user(db: Database, workspace_id: str) -> MachineUser:
    """The principal the service keeps for keys made without choosing one."""
    query = (
        select(*_COLUMNS)
        .where(machine_users.c.workspace_id == workspace_id, machine_users.c.managed.is_(True))
        .order_by(machine_users.c.id)
        .limit(1)
    )
    async with db.read() as connection:
        row = (await connection.execute(query)).mappings().first()
    if row is None:
        raise not_found("Managed machine user")
    return MachineUser(**row)
