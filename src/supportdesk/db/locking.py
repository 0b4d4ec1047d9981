"""Reading a row to change it, in a write transaction, so that no one else changes it
first: `FOR UPDATE` on PostgreSQL; on SQLite the writer already holds the whole database
(BEGIN IMMEDIATE: db/database.py), and SQLite has no row locks."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import ColumnElement, Row, Table, func, select

from supportdesk.db.connection import Connection


async def locked_row(
    connection: Connection,
    table: Table,
    columns: Sequence[ColumnElement[Any]],
    workspace_id: str,
    row_id: str,
) -> Row[Any] | None:
    """`columns` of the workspace's row `row_id` of `table`, locked until the transaction
    ends; None when there is none."""
    query = (
        select(*columns)
        .where(table.c.workspace_id == workspace_id, table.c.id == row_id)
        .with_for_update()  # SQLAlchemy writes nothing for it on SQLite
    )
    return (await connection.execute(query)).first()


async def lock_name(connection: Connection, name: str) -> None:
    """Hold a lock on `name` until the transaction ends, for a rule that spans workspaces
    (one workspace's row cannot guard it): a PostgreSQL advisory lock; on SQLite the
    writer already holds the whole database."""
    if connection.dialect.name == "postgresql":
        await connection.execute(select(func.pg_advisory_xact_lock(func.hashtext(name))))
