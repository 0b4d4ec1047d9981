"""Reading members: by id, and a page of the workspace's. Each is one statement."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import bindparam, select

from supportdesk.db import Database, Read
from supportdesk.db.tables import org_admins
from supportdesk.domain.counting import count_rows
from supportdesk.domain.members.models import MEMBER_COLUMNS, Member, member_of
from supportdesk.domain.pagination import Page, PageRequest, page_of
from supportdesk.domain.per_parent import ById

_MEMBERS = ById(MEMBER_COLUMNS, Member)


async def get_members(db: Database, workspace_id: str, ids: Sequence[str]) -> dict[str, Member]:
    """Members by id, one statement for any number of them."""
    return await _MEMBERS.fetch(db, workspace_id, ids)


# Every member of a workspace by name, for a picker (the inbox's assignee): one statement.
PICKER_LIMIT = 1000
_BY_NAME = Read(
    select(*MEMBER_COLUMNS)
    .where(org_admins.c.workspace_id == bindparam("workspace_id"))
    .order_by(org_admins.c.name, org_admins.c.id)
    .limit(PICKER_LIMIT),
    member_of,
)


async def members_by_name(db: Database, workspace_id: str) -> list[Member]:
    """The workspace's members by name (the first PICKER_LIMIT of them)."""
    return list(await db.fetch(_BY_NAME, workspace_id=workspace_id))


async def list_members(db: Database, workspace_id: str, page: PageRequest) -> Page[Member]:
    """The workspace's members in the order they joined."""
    query = select(*MEMBER_COLUMNS).where(org_admins.c.workspace_id == workspace_id)
    if page.after:
        query = query.where(org_admins.c.id > page.after)
    async with db.read() as connection:
        rows = await connection.execute(query.order_by(org_admins.c.id).limit(page.first + 1))
        return page_of([member_of(row) for row in rows], page.first)


async def count_members(db: Database, workspace_id: str) -> int:
    return await count_rows(db, org_admins, workspace_id)
