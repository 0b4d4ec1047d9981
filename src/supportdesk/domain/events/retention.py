"""Events and webhook deliveries are kept 30 days (SUPPORTDESK_EVENT_RETENTION_DAYS); the
dispatcher removes older ones now and then, in batches so no transaction grows large."""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime, timedelta

from sqlalchemy import delete, select

from supportdesk.db import Database
from supportdesk.db.tables import events, webhook_deliveries

DEFAULT_RETENTION_DAYS = 30
BATCH = 1_000


async def remove_expired(db: Database, at: datetime, retention_days: int) -> int:
    """Delete events and finished deliveries older than the retention; returns how many rows
    went. A delivery still pending stays until it succeeds or fails."""
    cutoff = at - timedelta(days=retention_days)
    removed = 0
    for table, condition in (
        (events, events.c.created_at < cutoff),
        (
            webhook_deliveries,
            (webhook_deliveries.c.created_at < cutoff) & (webhook_deliveries.c.status != "pending"),
        ),
    ):
        while True:
            async with db.transaction() as connection:
                keys = select(table.c.workspace_id, table.c.id).where(condition).limit(BATCH)
                rows = (await connection.execute(keys)).all()
                by_workspace: dict[str, list[str]] = defaultdict(list)
                for workspace_id, row_id in rows:
                    by_workspace[workspace_id].append(row_id)
                # Per workspace: each delete stays on one shard of a distributed database.
                for workspace_id, ids in by_workspace.items():
                    await connection.execute(
                        delete(table).where(
                            table.c.workspace_id == workspace_id, table.c.id.in_(ids)
                        )
                    )
            removed += len(rows)
            if len(rows) < BATCH:
                break
    return removed
