"""Migration 0015 drops webhook_deliveries' index on created_at; its rows and other indexes
stay, and downgrading puts the index back."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import Any

from alembic import command
from sqlalchemy import insert, inspect, select

from supportdesk.db.migrate import alembic_config, upgrade
from supportdesk.db.tables import webhook_deliveries, webhook_endpoints, workspaces
from tests.db.inspection import inspected
from tests.db.test_migration_0005 import with_connection

AT = datetime(2026, 11, 22, 13, 45, 7, tzinfo=UTC)


def delivery(number: int, status: str) -> dict[str, Any]:
    return {
        "workspace_id": "ws_1",
        "id": f"whd_{number}",
        "endpoint_id": "whk_1",
        "event_id": f"evt_{number}",
        "event_type": "issue.created",
        "status": status,
        "attempts": 0,
        "next_attempt_at": AT,
        "created_at": AT,
    }


async def seed(connection: Any) -> None:
    await connection.execute(insert(workspaces).values(id="ws_1", name="W", created_at=AT))
    await connection.execute(
        insert(webhook_endpoints).values(
            workspace_id="ws_1",
            id="whk_1",
            url="https://93.184.215.14/hook",
            enabled=True,
            secret_sealed="sealed",
            secret_prefix="whsec_abc",
            created_at=AT,
            updated_at=AT,
        )
    )
    await connection.execute(
        insert(webhook_deliveries), [delivery(1, "pending"), delivery(2, "succeeded")]
    )


def indexes(url: str) -> dict[str, tuple[str, ...]]:
    """The table's indexes: name -> columns."""

    def look(connection: Any) -> dict[str, tuple[str, ...]]:
        found = inspect(connection).get_indexes("webhook_deliveries")
        return {index["name"]: tuple(index["column_names"]) for index in found}

    return inspected(url, look)


def due_ids(url: str) -> list[str]:
    """The pending deliveries, read the way the dispatcher's queue reads them."""

    async def read(connection: Any) -> list[str]:
        rows = await connection.execute(
            select(webhook_deliveries.c.id)
            .where(webhook_deliveries.c.status == "pending")
            .order_by(webhook_deliveries.c.next_attempt_at)
        )
        return [row[0] for row in rows]

    return list(asyncio.run(with_connection(url, read)))


def test_up_keeps_the_rows_without_the_age_index_and_down_puts_it_back(
    empty_database: str,
) -> None:
    url = empty_database
    upgrade(url, "0014")
    asyncio.run(with_connection(url, seed))
    before = indexes(url)

    upgrade(url, "0015")
    after = indexes(url)
    pending_after_upgrade = due_ids(url)
    command.downgrade(alembic_config(url), "0014")

    assert before["ix_webhook_deliveries_created_at"] == ("created_at",)
    assert after == {k: v for k, v in before.items() if k != "ix_webhook_deliveries_created_at"}
    assert pending_after_upgrade == ["whd_1"]
    assert indexes(url) == before
    assert due_ids(url) == ["whd_1"]
