"""Reading webhook endpoints."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import select

from supportdesk.db import Database
from supportdesk.db.tables import webhook_endpoints
from supportdesk.domain.counting import count_rows
from supportdesk.domain.pagination import Page, PageRequest, page_of
from supportdesk.domain.webhooks.models import ENDPOINT_COLUMNS, WebhookEndpoint, endpoint_of


async def list_endpoints(
    db: Database, workspace_id: str, page: PageRequest
) -> Page[WebhookEndpoint]:
    """Oldest first, as every list."""
    query = select(*ENDPOINT_COLUMNS).where(webhook_endpoints.c.workspace_id == workspace_id)
    if page.after:
        query = query.where(webhook_endpoints.c.id > page.after)
    query = query.order_by(webhook_endpoints.c.id).limit(page.first + 1)
    async with db.read() as connection:
        rows = (await connection.execute(query)).all()
    return page_of([endpoint_of(row) for row in rows], page.first)


async def count_endpoints(db: Database, workspace_id: str) -> int:
    return await count_rows(db, webhook_endpoints, workspace_id)


async def get_endpoints(
    db: Database, workspace_id: str, ids: Sequence[str]
) -> dict[str, WebhookEndpoint]:
    query = select(*ENDPOINT_COLUMNS).where(
        webhook_endpoints.c.workspace_id == workspace_id, webhook_endpoints.c.id.in_(ids)
    )
    async with db.read() as connection:
        return {row[0]: endpoint_of(row) for row in await connection.execute(query)}
