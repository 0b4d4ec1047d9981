"""Changing one row of a workspace's table, which the transaction already holds."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import ColumnElement, Row, Table, update

from supportdesk.db.connection import Connection


async def updated_row(
    connection: Connection,
    table: Table,
    columns: Sequence[ColumnElement[Any]],
    workspace_id: str,
    row_id: str,
    **values: object,
) -> Row[Any]:
    """Set `values` on the workspace's row `row_id` of `table`, which exists (read first
    with `locked_row`); `columns` of the row as it is after."""
    statement = (
        update(table)
        .where(table.c.workspace_id == workspace_id, table.c.id == row_id)
        .values(**values)
        .returning(*columns)
    )
    return (await connection.execute(statement)).one()
