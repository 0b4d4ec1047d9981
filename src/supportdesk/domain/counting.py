"""Counting rows of a workspace's list: its total, across pages."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Table, func, select

from supportdesk.db import Database


async def count_rows(db: Database, table: Table, workspace_id: str, *conditions: Any) -> int:
    query = (
        select(func.count())
        .select_from(table)
        .where(table.c.workspace_id == workspace_id, *conditions)
    )
    async with db.read() as connection:
        return int(await connection.scalar(query) or 0)
