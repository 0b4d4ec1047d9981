"""Migration 0006 trades api_keys' table-wide unique constraint on the secret hash for a plain
index (a distributed PostgreSQL enforces only keys that hold workspace_id), and back."""

from __future__ import annotations

from alembic import command

from supportdesk.db.migrate import alembic_config, upgrade
from tests.db.inspection import inspected
from tests.tenancy import TableShape, table_shapes


def api_keys_shape(url: str) -> tuple[TableShape, set[tuple[str, ...]]]:
    """api_keys' keys, and the columns of its plain indexes."""
    from sqlalchemy import inspect

    def look(connection: object) -> tuple[TableShape, set[tuple[str, ...]]]:
        indexes = inspect(connection).get_indexes("api_keys")
        plain = {tuple(i["column_names"]) for i in indexes if not i["unique"]}  # type: ignore[arg-type]
        return table_shapes(connection)["api_keys"], plain

    return inspected(url, look)


def test_up_down_and_up_again(empty_database: str) -> None:
    upgrade(empty_database)
    after_upgrade = api_keys_shape(empty_database)
    command.downgrade(alembic_config(empty_database), "0005")
    after_downgrade = api_keys_shape(empty_database)
    upgrade(empty_database)

    shape, plain = after_upgrade
    assert ("secret_hash",) in plain
    assert all("workspace_id" in key for key in shape.unique)
    old_shape, old_plain = after_downgrade
    assert ("secret_hash",) in old_shape.unique
    assert ("secret_hash",) not in old_plain
    again, again_plain = api_keys_shape(empty_database)
    # SQLite rebuilds the table on each change: the order of its keys may differ.
    assert (again.primary, set(again.unique), set(again.foreign), again_plain) == (
        shape.primary, set(shape.unique), set(shape.foreign), plain,
    )  # fmt: skip
