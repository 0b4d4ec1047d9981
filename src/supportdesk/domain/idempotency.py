"""Idempotency keys: a client may retry a create safely by sending the same key.

The key is claimed inside the create's own transaction, so the claim and the object it
names commit or vanish together. A concurrent request with the same key waits on the
claim (PostgreSQL's unique index; SQLite's single writer) and then sees the first one's
answer. Keys are remembered for a day, per workspace and operation.
"""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta

import orjson
from sqlalchemy import select, update

from supportdesk.db.conflicts import insert_on
from supportdesk.db.connection import Connection
from supportdesk.db.tables import idempotency_keys
from supportdesk.domain.errors import DomainError, ErrorCode

RETENTION = timedelta(hours=24)
MAX_KEY_LENGTH = 255


def request_hash(values: dict[str, object]) -> str:
    """A fingerprint of the request's meaning (its normalised input)."""
    return hashlib.sha256(orjson.dumps(values, option=orjson.OPT_SORT_KEYS)).hexdigest()


async def claim(
    connection: Connection,
    workspace_id: str,
    operation: str,
    key: str,
    fingerprint: str,
    result_id: str,
    at: datetime,
) -> str | None:
    """Claim `key` for a new result. Returns None when claimed (go on and create
    `result_id`), or the id of the earlier result of the same request."""
    inserted = await connection.execute(
        insert_on(connection, idempotency_keys)
        .values(
            workspace_id=workspace_id,
            operation=operation,
            key=key,
            request_hash=fingerprint,
            result_id=result_id,
            created_at=at,
        )
        .on_conflict_do_nothing()
        .returning(idempotency_keys.c.key)
    )
    if inserted.first() is not None:
        return None
    where = (
        idempotency_keys.c.workspace_id == workspace_id,
        idempotency_keys.c.operation == operation,
        idempotency_keys.c.key == key,
    )
    earlier = (
        await connection.execute(
            select(
                idempotency_keys.c.request_hash,
                idempotency_keys.c.result_id,
                idempotency_keys.c.created_at,
            ).where(*where)
        )
    ).one()
    if earlier.created_at <= at - RETENTION:
        await connection.execute(
            update(idempotency_keys)
            .where(*where)
            .values(request_hash=fingerprint, result_id=result_id, created_at=at)
        )
        return None
    if earlier.request_hash != fingerprint:
        raise DomainError(
            ErrorCode.IDEMPOTENCY_KEY_MISMATCH,
            "This idempotency key was used with a different request; use a new key.",
        )
    return str(earlier.result_id)
