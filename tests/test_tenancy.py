"""Multi-tenant schema: every tenant table is keyed by workspace_id (ready to be
distributed by it), and the statement check itself can fail."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.db.inspection import inspected
from tests.processes import command_env
from tests.servers import RunningServer
from tests.tenancy import (
    SUBPROCESS_STATEMENTS,
    TENANT_TABLES,
    is_confined,
    table_shapes,
    unconfined_tables,
)

FULL_TEXT_NUMBERING = {("articles", ("search_rowid",)), ("issues", ("search_rowid",))}


def test_every_tenant_table_has_workspace_id_first_in_its_primary_key(
    server: RunningServer,
) -> None:
    tables = inspected(server.settings.database_url, table_shapes)

    tenant = {name for name in tables if name in TENANT_TABLES}
    assert tenant == TENANT_TABLES
    for name in tenant:
        shape = tables[name]
        assert shape.primary[:1] == ("workspace_id",), name
        for key in shape.foreign:
            assert "workspace_id" in key.columns, (name, key)
        for columns in shape.unique:
            if server.backend == "sqlite" and (name, columns) in FULL_TEXT_NUMBERING:
                continue  # numbers the rows of SQLite's full-text indexes (tests/tenancy.py)
            assert "workspace_id" in columns, (name, columns)


def test_the_statement_check_catches_an_unconfined_statement() -> None:
    assert not is_confined("SELECT issues.id FROM issues WHERE issues.id = ?")
    assert not is_confined("UPDATE contacts SET name=? WHERE contacts.id = ?")
    assert is_confined(
        "SELECT issues.id FROM issues WHERE issues.workspace_id = ? AND issues.id = ?"
    )
    assert is_confined("INSERT INTO messages (workspace_id, id) VALUES (?, ?)")
    assert is_confined("SELECT 1")


@pytest.mark.parametrize(
    ("statement", "unconfined"),
    [
        # A join that leaves the workspace: on Citus, a join off the distribution column.
        (
            "SELECT issues.id FROM issues JOIN contacts ON contacts.id = issues.requester_id"
            " WHERE issues.workspace_id = ?",
            {"contacts"},
        ),
        (
            "SELECT issues.id FROM issues JOIN contacts ON contacts.workspace_id ="
            " issues.workspace_id AND contacts.id = issues.requester_id"
            " WHERE issues.workspace_id = ?",
            set(),
        ),
        # An alias is confined under its own name, not the table's.
        ("SELECT i.id FROM issues AS i WHERE issues.workspace_id = ?", {"issues"}),
        ("SELECT i.id FROM issues AS i WHERE i.workspace_id IN (?)", set()),
        # The workspace row is its own tenant, found by id.
        ("UPDATE workspaces SET name=?", {"workspaces"}),
        ("UPDATE workspaces SET name=? WHERE workspaces.id = ?", set()),
        # A reasoned exception excuses its table only, not what it joins.
        (
            "SELECT api_keys.id FROM api_keys JOIN machine_users ON machine_users.id ="
            " api_keys.machine_user_id WHERE api_keys.secret_hash = ?",
            {"machine_users"},
        ),
        ("INSERT INTO messages (id, body) VALUES (?, ?)", {"messages"}),
        (
            "DELETE FROM form_submissions WHERE form_submissions.created_at < ?",
            {"form_submissions"},
        ),
        ("SELECT issues.workspace_id AS w FROM issues", {"issues"}),
        # SQLite's INDEXED BY names an index, not an alias (db/search.py).
        (
            "SELECT issues.id FROM issues_fts CROSS JOIN issues INDEXED BY ix_issues_search_rowid"
            " ON issues.search_rowid BETWEEN issues_fts.rowid AND issues_fts.rowid"
            " WHERE issues.workspace_id = ?",
            set(),
        ),
        (
            "SELECT issues.id FROM issues_fts CROSS JOIN issues INDEXED BY ix_issues_search_rowid"
            " ON issues.search_rowid BETWEEN issues_fts.rowid AND issues_fts.rowid",
            {"issues"},
        ),
    ],
)
def test_the_statement_check_reads_each_table_of_a_statement(
    statement: str, unconfined: set[str]
) -> None:
    assert unconfined_tables(statement) == unconfined


def test_statements_of_subprocesses_reach_the_check() -> None:
    """A process started with a traced environment (as `serve` and the CLI are in the
    tests) reports its statements, so a leak there fails the test that caused it."""
    earlier = SUBPROCESS_STATEMENTS.unread()
    assert [s for s in earlier if not is_confined(s)] == []
    probe = "SELECT issues.id FROM issues WHERE issues.id = 'probe'"
    script = (
        "from sqlalchemy import create_engine, text\n"
        "with create_engine('sqlite://').connect() as c:\n"
        f"    c.execute(text({probe!r}))\n"
    )

    subprocess.run(
        [sys.executable, "-c", script], env=command_env(), capture_output=True, check=False
    )

    assert probe in SUBPROCESS_STATEMENTS.unread()
    assert not is_confined(probe)
