"""`serve` and `dispatch` start only on a schema at this release's head, and a command
pointed at a database that is not there says so without making one."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path

import pytest
from sqlalchemy import text

from supportdesk.config import normalise_database_url
from supportdesk.db import Database
from supportdesk.db.migrate import upgrade
from tests.cli.runner import supportdesk


@pytest.mark.parametrize("command", ["serve", "dispatch"])
def test_an_empty_database_is_not_served(fresh_database: str, command: str) -> None:
    if fresh_database.startswith("sqlite"):
        # An empty file, as a mistaken path or a copy gone wrong leaves.
        path = Path(fresh_database.removeprefix("sqlite:///"))
        path.parent.mkdir(parents=True)
        path.touch()

    refused = supportdesk(command, database_url=fresh_database)

    assert refused.returncode == 1
    assert "no schema yet: run `supportdesk init` (or `migrate`) first" in refused.stderr
    assert "Traceback" not in refused.stderr
    if fresh_database.startswith("sqlite"):
        assert path.stat().st_size == 0  # looked at, not opened: nothing written into it


def test_a_schema_behind_this_release_is_not_served(fresh_database: str) -> None:
    upgrade(normalise_database_url(fresh_database), "0020")
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    port = str(taken.getsockname()[1])

    refused = supportdesk("serve", "--port", port, database_url=fresh_database)
    upgrade(normalise_database_url(fresh_database))
    # The same command on the migrated database passes the check, and stops at the port.
    served = supportdesk("serve", "--port", port, database_url=fresh_database)
    taken.close()

    assert refused.returncode == 1
    assert "schema is at 0020, this release needs" in refused.stderr
    assert "run `supportdesk migrate`" in refused.stderr
    assert "schema" not in served.stderr
    assert f"127.0.0.1:{port}" in served.stderr


def test_a_missing_sqlite_file_is_named_and_not_made(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere" / "supportdesk.db"

    listed = supportdesk("keys", "list", "--workspace", "ws_x", database_url=f"sqlite:///{missing}")
    served = supportdesk("serve", database_url=f"sqlite:///{missing}")

    for refused in (listed, served):
        assert refused.returncode == 1
        assert f"No database file: '{missing}'" in refused.stderr
    assert not missing.parent.exists()


async def _write(url: str, sql: str) -> None:
    db = Database(url, pool_size=1)
    try:
        async with db.transaction() as connection:
            await connection.execute(text(sql))
    finally:
        await db.dispose()


def _taken_port() -> socket.socket:
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    return taken


def test_a_newer_schema_is_served_with_a_warning(fresh_database: str) -> None:
    """A rolling upgrade migrates first: the processes of the release before keep starting."""
    url = normalise_database_url(fresh_database)
    upgrade(url)
    asyncio.run(_write(url, "UPDATE alembic_version SET version_num = '9999'"))
    with _taken_port() as taken:
        port = str(taken.getsockname()[1])
        served = supportdesk("serve", "--port", port, database_url=fresh_database)

    assert "The database's schema (9999) is newer than this release's" in served.stderr
    assert f"127.0.0.1:{port}" in served.stderr  # it went on, to the port
    assert "Traceback" not in served.stderr


def test_a_database_not_reachable_yet_is_said_and_not_refused() -> None:
    with _taken_port() as taken:
        port = str(taken.getsockname()[1])
        served = supportdesk(
            "serve", "--port", port, database_url="postgresql://postgres@127.0.0.1:1/nowhere"
        )

    assert "Could not read the schema's revision" in served.stderr
    assert f"127.0.0.1:{port}" in served.stderr
    assert "Traceback" not in served.stderr
