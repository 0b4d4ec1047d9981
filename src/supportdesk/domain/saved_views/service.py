"""Saved views (docs/inbox.md): a filter of the queue kept under a name. A member keeps
their own; an admin may share one with every member of the workspace. The filter is the
queue's own names and values: the domain keeps it small and hands it back as it was."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, delete, func, insert, or_, select

from supportdesk.db import Database, Read
from supportdesk.db.tables import saved_views
from supportdesk.domain.clock import now
from supportdesk.domain.errors import DomainError, ErrorCode, FieldCode, not_found
from supportdesk.domain.ids import is_id_of, new_id
from supportdesk.domain.validation import Validator

MAX_NAME = 50
# Views one member keeps, and views shared in a workspace: the queue lists them all.
MAX_VIEWS = 50
MAX_FILTER_KEYS = 10
_MAX_FILTER_KEY = 20
_MAX_FILTER_VALUE = 200


@dataclass(frozen=True, slots=True)
class SavedView:
    id: str
    workspace_id: str
    # The member who keeps it; None when it is shared with every member.
    owner_id: str | None
    name: str
    filter: dict[str, str]
    created_by: str
    created_at: datetime

    @property
    def shared(self) -> bool:
        return self.owner_id is None


_COLUMNS = (
    saved_views.c.id,
    saved_views.c.workspace_id,
    saved_views.c.owner_id,
    saved_views.c.name,
    saved_views.c.filter,
    saved_views.c.created_by,
    saved_views.c.created_at,
)


def _view_of(row: Any) -> SavedView:
    view_id, workspace_id, owner_id, name, stored, created_by, created_at = row
    return SavedView(
        view_id, workspace_id, owner_id, name, json.loads(stored), created_by, created_at
    )


# A member sees their own views and the shared ones: shared first, then by name.
_VISIBLE = Read(
    select(*_COLUMNS)
    .where(
        saved_views.c.workspace_id == bindparam("workspace_id"),
        or_(saved_views.c.owner_id == bindparam("member_id"), saved_views.c.owner_id.is_(None)),
    )
    .order_by(
        saved_views.c.owner_id.is_not(None), func.lower(saved_views.c.name), saved_views.c.id
    ),
    _view_of,
)


async def list_saved_views(db: Database, workspace_id: str, member_id: str) -> list[SavedView]:
    """The views `member_id` may use: their own and the shared ones, in one statement."""
    return list(await db.fetch(_VISIBLE, workspace_id=workspace_id, member_id=member_id))


async def get_saved_view(
    db: Database, workspace_id: str, member_id: str, view_id: str
) -> SavedView:
    """One view the member may use; NOT_FOUND for any other id (another member's too)."""
    if is_id_of(view_id, "SavedView"):
        for view in await list_saved_views(db, workspace_id, member_id):
            if view.id == view_id:
                return view
    raise not_found("Saved view")


def _checked_filter(check: Validator, wanted: Mapping[str, str]) -> dict[str, str]:
    kept = {str(key): str(value) for key, value in wanted.items() if value}
    too_long = any(
        len(key) > _MAX_FILTER_KEY or len(value) > _MAX_FILTER_VALUE for key, value in kept.items()
    )
    if len(kept) > MAX_FILTER_KEYS or too_long or any("\x00" in v for v in kept.values()):
        check.fail("filter", FieldCode.INVALID)
    return kept


async def save_view(
    db: Database,
    workspace_id: str,
    member_id: str,
    *,
    is_admin: bool,
    name: str | None,
    wanted: Mapping[str, str],
    shared: bool = False,
) -> SavedView:
    """Keep `wanted` under `name`, for the member alone or (an admin only: FORBIDDEN
    otherwise) shared with the workspace; LIMIT_REACHED past MAX_VIEWS of either kind."""
    if shared and not is_admin:
        raise DomainError(ErrorCode.FORBIDDEN, "Only an admin shares a view with everyone.")
    check = Validator()
    clean_name = check.text("name", name, MAX_NAME, required=True)
    kept = _checked_filter(check, wanted)
    check.check()
    assert clean_name is not None
    owner_id = None if shared else member_id
    moment = now()
    view = SavedView(
        new_id("SavedView", moment), workspace_id, owner_id, clean_name, kept, member_id, moment
    )
    async with db.transaction() as connection:
        mine = saved_views.c.owner_id.is_(None) if shared else saved_views.c.owner_id == member_id
        held = await connection.scalar(
            select(func.count())
            .select_from(saved_views)
            .where(saved_views.c.workspace_id == workspace_id, mine)
        )
        if (held or 0) >= MAX_VIEWS:
            raise DomainError(ErrorCode.LIMIT_REACHED, f"At most {MAX_VIEWS} saved views.")
        await connection.execute(
            insert(saved_views).values(
                workspace_id=workspace_id,
                id=view.id,
                owner_id=owner_id,
                name=view.name,
                filter=json.dumps(kept, sort_keys=True),
                created_by=member_id,
                created_at=moment,
            )
        )
    return view


async def delete_saved_view(
    db: Database, workspace_id: str, member_id: str, view_id: str, *, is_admin: bool
) -> SavedView:
    """Delete a view: the member's own, or a shared one by an admin (FORBIDDEN for an
    agent); NOT_FOUND for a view the member cannot see."""
    view = await get_saved_view(db, workspace_id, member_id, view_id)
    if view.shared and not is_admin:
        raise DomainError(ErrorCode.FORBIDDEN, "Only an admin deletes a shared view.")
    async with db.transaction() as connection:
        await connection.execute(
            delete(saved_views).where(
                saved_views.c.workspace_id == workspace_id, saved_views.c.id == view.id
            )
        )
    return view
