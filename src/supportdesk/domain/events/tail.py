"""Reading the log as it grows, for the live stream (docs/events-stream.md): where each
workspace's log ends, and what came after given positions, for many workspaces at once."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from sqlalchemy import and_, or_, select

from supportdesk.db import Database
from supportdesk.db.tables import events, workspaces
from supportdesk.domain.events.log import EVENT_COLUMNS, Event
from supportdesk.domain.events.queries import oldest_sequence


async def last_sequences(db: Database, workspace_ids: Sequence[str]) -> dict[str, int]:
    """The last committed sequence of each workspace (0 before its first event)."""
    query = select(workspaces.c.id, workspaces.c.last_event_sequence).where(
        workspaces.c.id.in_(workspace_ids)
    )
    async with db.read() as connection:
        rows = (await connection.execute(query)).all()
    return {workspace_id: int(last) for workspace_id, last in rows}


async def events_after_each(db: Database, positions: Mapping[str, int], limit: int) -> list[Event]:
    """Up to `limit` events of the workspaces of `positions`, each after its position, by
    workspace then sequence: one statement for any number of workspaces."""
    if not positions:
        return []
    query = (
        select(*EVENT_COLUMNS)
        .where(
            or_(
                *(
                    and_(events.c.workspace_id == workspace_id, events.c.sequence > after)
                    for workspace_id, after in positions.items()
                )
            )
        )
        .order_by(events.c.workspace_id, events.c.sequence)
        .limit(limit)
    )
    async with db.read() as connection:
        return [Event(*row) for row in (await connection.execute(query)).all()]


async def events_after(
    db: Database, workspace_id: str, after: int, types: Sequence[str], limit: int
) -> list[Event]:
    """Up to `limit` events of `types` after sequence `after`, oldest first."""
    query = (
        select(*EVENT_COLUMNS)
        .where(
            events.c.workspace_id == workspace_id,
            events.c.type.in_(types),
            events.c.sequence > after,
        )
        .order_by(events.c.sequence)
        .limit(limit)
    )
    async with db.read() as connection:
        return [Event(*row) for row in (await connection.execute(query)).all()]


async def kept_from(db: Database, workspace_id: str) -> tuple[int, int]:
    """The oldest sequence the log still keeps (one past the last when it keeps none) and
    the last one written."""
    async with db.read() as connection:
        last = int(
            await connection.scalar(
                select(workspaces.c.last_event_sequence).where(workspaces.c.id == workspace_id)
            )
            or 0
        )
        return await oldest_sequence(connection, workspace_id, last), last
