"""Reading the event log: oldest first, by sequence."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import ColumnElement, func, select

from supportdesk.db import Database
from supportdesk.db.connection import Connection
from supportdesk.db.tables import events, workspaces
from supportdesk.domain.errors import InvalidArgument
from supportdesk.domain.events.log import EVENT_COLUMNS, Event
from supportdesk.domain.pagination import Page, PageRequest, page_of
from supportdesk.domain.per_parent import ById


def cursor_key(event: Event) -> str:
    return str(event.sequence)


def _position(page: PageRequest) -> int:
    if page.after is None:
        return 0
    try:
        return int(page.after)
    except ValueError:
        raise InvalidArgument("`after` is not a cursor of this list.") from None


def _conditions(workspace_id: str, types: Sequence[str]) -> list[ColumnElement[bool]]:
    return [events.c.workspace_id == workspace_id, events.c.type.in_(types)]


async def list_events(
    db: Database,
    workspace_id: str,
    page: PageRequest,
    types: Sequence[str],
    since_sequence: int | None = None,
) -> Page[Event]:
    """Events of `types` after the cursor and after `since_sequence`, oldest first;
    BAD_USER_INPUT when retention already removed events after `since_sequence`."""
    async with db.read() as connection:
        if since_sequence is not None:
            await _check_still_kept(connection, workspace_id, since_sequence)
        after = max(_position(page), since_sequence or 0)
        query = (
            select(*EVENT_COLUMNS)
            .where(*_conditions(workspace_id, types), events.c.sequence > after)
            .order_by(events.c.sequence)
            .limit(page.first + 1)
        )
        rows = (await connection.execute(query)).all()
    return page_of([Event(*row) for row in rows], page.first)


async def count_events(
    db: Database,
    workspace_id: str,
    types: Sequence[str],
    since_sequence: int | None = None,
) -> int:
    query = select(func.count()).where(
        *_conditions(workspace_id, types), events.c.sequence > (since_sequence or 0)
    )
    async with db.read() as connection:
        return int(await connection.scalar(query) or 0)


async def _check_still_kept(connection: Connection, workspace_id: str, since_sequence: int) -> None:
    """BAD_USER_INPUT (with `oldestSequence`) when events after `since_sequence` were
    already removed by retention: the client missed events it can no longer fetch."""
    oldest = await oldest_sequence(connection, workspace_id)
    if since_sequence + 1 < oldest:
        raise InvalidArgument(
            f"Events before sequence {oldest} are no longer kept; `sinceSequence` must be"
            f" at least {oldest - 1}.",
            oldestSequence=oldest,
        )


async def oldest_sequence(
    connection: Connection, workspace_id: str, last: int | None = None
) -> int:
    """The oldest sequence retention has kept; when it kept none, the next one to come
    (`last`, the workspace's last sequence, is read when not given)."""
    oldest = await connection.scalar(
        select(func.min(events.c.sequence)).where(events.c.workspace_id == workspace_id)
    )
    if oldest is not None:
        return int(oldest)
    if last is None:
        last = await connection.scalar(
            select(workspaces.c.last_event_sequence).where(workspaces.c.id == workspace_id)
        )
    return int(last or 0) + 1


_EVENTS = ById(EVENT_COLUMNS, Event)


async def get_events(db: Database, workspace_id: str, ids: Sequence[str]) -> dict[str, Event]:
    """Events by id, one statement for any number of them."""
    return await _EVENTS.fetch(db, workspace_id, ids)
