"""Uploads never attached are removed a day after they were made, bytes included, by the
periodic job that removes expired events (dispatch/dispatcher.py). Workspace by workspace,
on the index of unattached rows; an object goes only when no attachment keeps its bytes."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, select

from supportdesk.db import Database
from supportdesk.db.tables import attachments, workspaces
from supportdesk.domain.attachments.models import UNATTACHED_KEPT, storage_key
from supportdesk.domain.attachments.uploads import is_held
from supportdesk.storage import ObjectStorage

BATCH = 500
_EVERY_WORKSPACE = select(workspaces.c.id).prefix_with("/* retention: every workspace */")


async def remove_unattached(db: Database, storage: ObjectStorage, at: datetime) -> int:
    """Delete the uploads made before `at` less a day that no message took, and the stored
    bytes no attachment keeps any more; returns how many uploads went."""
    cutoff = at - UNATTACHED_KEPT
    async with db.read() as connection:
        workspace_ids = list(await connection.scalars(_EVERY_WORKSPACE))
    removed = 0
    for workspace_id in workspace_ids:
        removed += await _remove_in(db, storage, workspace_id, cutoff)
    return removed


async def _remove_in(
    db: Database, storage: ObjectStorage, workspace_id: str, cutoff: datetime
) -> int:
    unattached = (
        (attachments.c.workspace_id == workspace_id)
        & attachments.c.message_id.is_(None)
        & (attachments.c.created_at < cutoff)
    )
    expired = select(attachments.c.id).where(unattached).limit(BATCH)
    removed = 0
    while True:
        async with db.read() as connection:  # most workspaces have none: no transaction
            ids = list(await connection.scalars(expired))
        if not ids:
            return removed
        # Those a message took meanwhile stay: the condition is asked again.
        async with db.transaction() as connection:
            gone = (
                await connection.execute(
                    delete(attachments)
                    .where(unattached, attachments.c.id.in_(ids))
                    .returning(attachments.c.sha256)
                )
            ).all()
        removed += len(gone)
        for sha256 in {row[0] for row in gone if row[0] is not None}:
            if not await is_held(db, workspace_id, sha256):
                await storage.delete(storage_key(workspace_id, sha256))
        if len(ids) < BATCH:
            return removed
