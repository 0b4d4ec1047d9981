"""The people who act in a workspace, by id: members and machine users, read together in
one statement however many of each (an issue list's assignees, a thread's authors)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Boolean, String, bindparam, cast, literal, null, select, union_all

from supportdesk.db import Database, Read, in_ids
from supportdesk.db.tables import machine_users, org_admins
from supportdesk.db.types import UTCDateTime
from supportdesk.domain.machine_users.service import MachineUser
from supportdesk.domain.members.models import Member

Person = Member | MachineUser

# One row shape for both: kind, id, workspace, name, then each kind's own columns.
_PEOPLE = union_all(
    select(
        literal("machine_user"),
        machine_users.c.id,
        machine_users.c.workspace_id,
        machine_users.c.name,
        machine_users.c.description,
        cast(null(), String),
        machine_users.c.managed,
        machine_users.c.created_at,
        machine_users.c.updated_at,
    ).where(
        machine_users.c.workspace_id == bindparam("workspace_id"),
        in_ids(machine_users.c.id, "ids"),
    ),
    select(
        literal("member"),
        org_admins.c.id,
        org_admins.c.workspace_id,
        org_admins.c.name,
        org_admins.c.email,
        org_admins.c.role,
        cast(null(), Boolean),
        org_admins.c.created_at,
        cast(null(), UTCDateTime),
    ).where(
        org_admins.c.workspace_id == bindparam("workspace_id"),
        in_ids(org_admins.c.id, "ids"),
    ),
)


def _person(row: Sequence[Any]) -> Person:
    kind, person_id, workspace_id, name, text, role, managed, created_at, updated_at = row
    if kind == "member":
        return Member(person_id, workspace_id, text, name, role, created_at)
    return MachineUser(person_id, workspace_id, name, text, managed, created_at, updated_at)


_READ = Read(_PEOPLE, _person)


async def get_people(db: Database, workspace_id: str, ids: Sequence[str]) -> dict[str, Person]:
    """Members and machine users by id (any other id is simply not found)."""
    found = await db.fetch(_READ, workspace_id=workspace_id, ids=list(ids))
    return {person.id: person for person in found}
