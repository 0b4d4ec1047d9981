"""A wrong setting or option is named in one line by every command, never a traceback or
a process that starts and fails later; a migration names what it did and what it cannot."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from supportdesk.config import normalise_database_url
from supportdesk.db.migrate import upgrade
from tests.cli.runner import supportdesk


@pytest.mark.parametrize(
    ("args", "env", "said"),
    [
        (
            ["migrate"],
            {"SUPPORTDESK_DATABASE_URL": "mysql://root@127.0.0.1/desk"},
            "SUPPORTDESK_DATABASE_URL: SQLite (sqlite:///path/to/file.db) or PostgreSQL",
        ),
        (
            ["keys", "list", "--workspace", "ws_x"],
            {"SUPPORTDESK_DATABASE_URL": "foo://bar"},
            "SUPPORTDESK_DATABASE_URL: SQLite",
        ),
        (
            ["migrate"],
            {"SUPPORTDESK_BASE_URL": "desk.example.com"},
            "SUPPORTDESK_BASE_URL: an http:// or https:// address",
        ),
        (
            ["serve"],
            {"SUPPORTDESK_REDIS_URL": "notredis"},
            "SUPPORTDESK_REDIS_URL: redis://host:6379/0",
        ),
        (["serve", "--port", "70000"], {}, "Invalid value for '--port'"),
    ],
)
def test_a_wrong_setting_is_one_line(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    env: dict[str, str],
    said: str,
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    url = env.get("SUPPORTDESK_DATABASE_URL", f"sqlite:///{tmp_path / 'desk.db'}")

    refused = supportdesk(*args, database_url=url)

    assert refused.returncode != 0
    assert said in refused.stderr
    assert "Traceback" not in refused.stderr
    said_lines = [line for line in refused.stderr.splitlines() if line.strip()]
    assert len(said_lines) <= 3, refused.stderr  # click's usage lines at most, and the error


def test_migrate_says_when_it_made_a_new_sqlite_file(tmp_path: Path) -> None:
    path = tmp_path / "typo" / "desk.db"

    first = supportdesk("migrate", database_url=f"sqlite:///{path}")
    again = supportdesk("migrate", database_url=f"sqlite:///{path}")

    assert first.stdout.splitlines() == [
        f"Created a new database: {path}",
        "Database is up to date.",
    ]
    assert again.stdout.splitlines() == ["Database is up to date."]


def test_migrate_on_a_schema_newer_than_the_release_says_so(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'desk.db'}"
    upgrade(normalise_database_url(url))
    with sqlite3.connect(tmp_path / "desk.db") as connection:
        connection.execute("UPDATE alembic_version SET version_num = '9999'")

    refused = supportdesk("migrate", database_url=url)

    assert refused.returncode == 1
    assert "the database's schema is newer than this release" in refused.stderr
    assert "Traceback" not in refused.stderr
