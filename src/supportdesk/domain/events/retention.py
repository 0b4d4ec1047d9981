"""Events and webhook deliveries are kept 30 days (SUPPORTDESK_EVENT_RETENTION_DAYS); the
dispatcher removes older ones now and then, in batches so no transaction grows large."""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime, timedelta

from sqlalchemy import delete, select

from supportdesk.db import Database
from supportdesk.db.tables import events, webhook_deliveries, workspaces
from supportdesk.domain.ids import first_id_at

BATCH = 1_000
# Deliveries are removed workspace by workspace, from the list of every workspace.
_EVERY_WORKSPACE = select(workspaces.c.id).prefix_with("/* retention: every workspace */")


async def remove_expired(db: Database, at: datetime, retention_days: int) -> int:
    """Delete events and finished deliveries older than the retention; returns how many rows
    went. A delivery still pending stays until it succeeds or fails."""
    cutoff = at - timedelta(days=retention_days)
    return await _remove_events(db, cutoff) + await _remove_deliveries(db, cutoff)


async def _remove_events(db: Database, cutoff: datetime) -> int:
    removed = 0
    while True:
        async with db.transaction() as connection:
            keys = select(events.c.workspace_id, events.c.id).where(events.c.created_at < cutoff)
            rows = (await connection.execute(keys.limit(BATCH))).all()
            by_workspace: dict[str, list[str]] = defaultdict(list)
            for workspace_id, event_id in rows:
                by_workspace[workspace_id].append(event_id)
            # Per workspace: each delete stays on one shard of a distributed database.
            for workspace_id, ids in by_workspace.items():
                await connection.execute(
                    delete(events).where(
                        events.c.workspace_id == workspace_id, events.c.id.in_(ids)
                    )
                )
        removed += len(rows)
        if len(rows) < BATCH:
            return removed


async def _remove_deliveries(db: Database, cutoff: datetime) -> int:
    """Workspace by workspace, on the primary key: a delivery's id sorts by when it was
    made, so those made before the cutoff have ids below `first_id_at(cutoff)` (the table
    has no index on its age: every delivery would pay for one). Their age is checked too:
    under a database collation that does not sort ids by their characters (some treat "AA"
    or "CH" as one letter), the range may take in younger ones, which then stay."""
    first_kept = first_id_at("WebhookDelivery", cutoff)
    async with db.read() as connection:
        workspace_ids = list(await connection.scalars(_EVERY_WORKSPACE))
    removed = 0
    for workspace_id in workspace_ids:
        in_workspace = webhook_deliveries.c.workspace_id == workspace_id
        expired = (
            select(webhook_deliveries.c.id)
            .where(
                in_workspace,
                webhook_deliveries.c.id < first_kept,
                webhook_deliveries.c.created_at < cutoff,
                webhook_deliveries.c.status != "pending",
            )
            .limit(BATCH)
        )
        while True:
            async with db.read() as connection:  # most workspaces have none: no transaction
                ids = list(await connection.scalars(expired))
            if ids:  # another process's retention may have taken some meanwhile
                async with db.transaction() as connection:
                    deleted = await connection.execute(
                        delete(webhook_deliveries).where(
                            in_workspace, webhook_deliveries.c.id.in_(ids)
                        )
                    )
                removed += deleted.rowcount
            if len(ids) < BATCH:
                break
    return removed
