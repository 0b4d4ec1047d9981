"""Multi-tenant schema: every tenant table is keyed by workspace_id (ready to be
distributed by it), and the statement check itself can fail."""

from __future__ import annotations

from sqlalchemy import inspect

from tests.servers import RunningServer
from tests.tenancy import TENANT_TABLES, is_confined


def test_every_tenant_table_has_workspace_id_first_in_its_primary_key(
    server: RunningServer,
) -> None:
    async def layout() -> dict[str, dict[str, object]]:
        async with server.db.read() as connection:
            return await connection.run_sync(
                lambda sync: {
                    name: {
                        "primary": inspect(sync).get_pk_constraint(name)["constrained_columns"],
                        "unique": [
                            u["column_names"] for u in inspect(sync).get_unique_constraints(name)
                        ],
                        "foreign": [
                            f["constrained_columns"] for f in inspect(sync).get_foreign_keys(name)
                        ],
                    }
                    for name in inspect(sync).get_table_names()
                }
            )

    tables = server.call(layout())

    tenant = {name for name, shape in tables.items() if name in TENANT_TABLES}
    assert tenant == TENANT_TABLES
    for name in tenant:
        shape = tables[name]
        assert shape["primary"][:1] == ["workspace_id"], name  # type: ignore[index]
        for columns in shape["foreign"]:  # type: ignore[attr-defined]
            assert "workspace_id" in columns, (name, columns)
        for columns in shape["unique"]:  # type: ignore[attr-defined]
            # The key hash is the one global lookup: authentication precedes the workspace.
            assert "workspace_id" in columns or columns == ["secret_hash"], (name, columns)


def test_the_statement_check_catches_an_unconfined_statement() -> None:
    assert not is_confined("SELECT issues.id FROM issues WHERE issues.id = ?")
    assert not is_confined("UPDATE contacts SET name=? WHERE contacts.id = ?")
    assert is_confined(
        "SELECT issues.id FROM issues WHERE issues.workspace_id = ? AND issues.id = ?"
    )
    assert is_confined("INSERT INTO messages (workspace_id, id) VALUES (?, ?)")
    assert is_confined("SELECT 1")
