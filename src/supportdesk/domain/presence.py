"""Who else is on an issue (docs/inbox.md): each open issue page beats every
BEAT_SECONDS with its member's state, viewing or replying, and is shown to the others
while its last beat is at most FRESH_SECONDS old.

Kept in the database, which every server process of a deployment shares (SQLite's one
process, PostgreSQL's several), rather than in Redis, which is optional here: a beat is
one small transaction (an upsert, and the others read back), so a hundred open pages
cost fifty a second."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, bindparam, delete, select

from supportdesk.db import Database
from supportdesk.db.conflicts import PerDialect
from supportdesk.db.tables import issue_presence, org_admins
from supportdesk.domain.clock import now
from supportdesk.domain.errors import InvalidArgument

VIEWING, REPLYING = "viewing", "replying"
STATES = (VIEWING, REPLYING)
# A page beats this often; a member is shown while their last beat is younger than
# FRESH_SECONDS, so one late beat does not hide them, and a page closed without a word
# (its `leave` lost) stops showing within FRESH_SECONDS plus the observer's next beat.
BEAT_SECONDS = 2.0
FRESH_SECONDS = 3.0
# Rows older than this are removed as other beats of the issue pass by.
FORGOTTEN_AFTER = timedelta(minutes=5)


@dataclass(frozen=True, slots=True)
class Presence:
    """Another member on the issue."""

    member_id: str
    name: str
    email: str
    state: str
    seen_at: datetime

    @property
    def shown_name(self) -> str:
        return self.name or self.email

    @property
    def replying(self) -> bool:
        return self.state == REPLYING


def _beat(insert: Any) -> Any:
    statement = insert(issue_presence).values(
        workspace_id=bindparam("workspace_id"),
        issue_id=bindparam("issue_id"),
        member_id=bindparam("member_id"),
        state=bindparam("state"),
        seen_at=bindparam("seen_at"),
    )
    return statement.on_conflict_do_update(
        index_elements=[
            issue_presence.c.workspace_id,
            issue_presence.c.issue_id,
            issue_presence.c.member_id,
        ],
        set_={"state": statement.excluded.state, "seen_at": statement.excluded.seen_at},
    )


_BEAT = PerDialect(_beat)

_OF_ISSUE = and_(
    issue_presence.c.workspace_id == bindparam("workspace_id"),
    issue_presence.c.issue_id == bindparam("issue_id"),
)
_OTHERS = (
    select(
        issue_presence.c.member_id,
        org_admins.c.name,
        org_admins.c.email,
        issue_presence.c.state,
        issue_presence.c.seen_at,
    )
    .join(
        org_admins,
        and_(
            org_admins.c.workspace_id == issue_presence.c.workspace_id,
            org_admins.c.id == issue_presence.c.member_id,
        ),
    )
    .where(
        _OF_ISSUE,
        issue_presence.c.member_id != bindparam("member_id"),
        issue_presence.c.seen_at > bindparam("fresh_after"),
    )
    .order_by(org_admins.c.name, org_admins.c.email)
)
_FORGET = delete(issue_presence).where(
    _OF_ISSUE, issue_presence.c.seen_at < bindparam("forgotten_before")
)
_LEAVE = delete(issue_presence).where(
    _OF_ISSUE, issue_presence.c.member_id == bindparam("member_id")
)


def _others_of(rows: Any) -> list[Presence]:
    return [Presence(row.member_id, row.name, row.email, row.state, row.seen_at) for row in rows]


async def beat(
    db: Database, workspace_id: str, issue_id: str, member_id: str, state: str
) -> list[Presence]:
    """The member is on the issue, in `state`: recorded, and the other members fresh on
    it returned (by name). InvalidArgument for a state that is not one of STATES."""
    if state not in STATES:
        raise InvalidArgument(f"A presence is one of {', '.join(STATES)}.")
    at = now()
    keys = {"workspace_id": workspace_id, "issue_id": issue_id, "member_id": member_id}
    async with db.transaction() as connection:
        await connection.execute(_FORGET, {**keys, "forgotten_before": at - FORGOTTEN_AFTER})
        await connection.execute(_BEAT.on(connection), {**keys, "state": state, "seen_at": at})
        fresh_after = at - timedelta(seconds=FRESH_SECONDS)
        rows = await connection.execute(_OTHERS, {**keys, "fresh_after": fresh_after})
        return _others_of(rows)


async def leave(db: Database, workspace_id: str, issue_id: str, member_id: str) -> None:
    """The member's page of the issue closed: the others stop showing them at once."""
    keys = {"workspace_id": workspace_id, "issue_id": issue_id, "member_id": member_id}
    async with db.transaction() as connection:
        await connection.execute(_LEAVE, keys)
