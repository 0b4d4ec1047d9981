"""Counting rows of a workspace's list: its total, across pages."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Table, func, select

from supportdesk.db.connection import Connection


async def count_rows(
    connection: Connection, table: Table, workspace_id: str, *conditions: Any
) -> int:
    query = (
        select(func.count())
        .select_from(table)
        .where(table.c.workspace_id == workspace_id, *conditions)
    )
    return int(await connection.scalar(query) or 0)
