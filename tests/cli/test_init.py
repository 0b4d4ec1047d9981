"""`supportdesk init`: migrate, then a workspace, its admin and a Full-access key."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from supportdesk.auth.scopes import PRESETS
from tests.cli.runner import json_of, supportdesk

KEY = re.compile(r"\Asvc_mk_[0-9A-Za-z]{38}\Z")


def init(database: str, *extra: str) -> dict[str, str]:
    return json_of(
        supportdesk(
            "init",
            "--workspace",
            "Acme",
            "--admin-email",
            "ops@acme.test",
            *extra,
            "--json",
            database_url=database,
        )
    )


def test_init_json_and_running_it_again_adds_a_workspace(fresh_database: str) -> None:
    first = init(fresh_database)
    second = init(fresh_database, "--admin-password", "long enough secret")

    # Without --admin-password one is generated and printed; with it, it is not echoed.
    for made in (first, second):
        assert {"workspace_id", "admin_email", "api_key"} <= set(made)
    assert len(first["admin_password"]) >= 12
    assert "admin_password" not in second
    for made in (first, second):
        assert made["workspace_id"].startswith("ws_")
        assert made["admin_email"] == "ops@acme.test"
        assert KEY.match(made["api_key"])
    assert first["workspace_id"] != second["workspace_id"]
    # Each workspace holds exactly its own Full-access key.
    for made in (first, second):
        listed = json_of(
            supportdesk(
                "keys",
                "list",
                "--workspace",
                made["workspace_id"],
                "--json",
                database_url=fresh_database,
            )
        )
        assert [(k["key_prefix"], k["scopes"], k["status"]) for k in listed] == [
            (made["api_key"][:12], list(PRESETS["full_access"]), "active")
        ]


def test_the_text_output_shows_the_admin_login_and_the_key(fresh_database: str) -> None:
    result = supportdesk(
        "init",
        "--workspace",
        "Acme",
        "--admin-email",
        "ops@acme.test",
        database_url=fresh_database,
    )

    assert result.returncode == 0, result.stderr
    assert re.search(r"Admin login\s+ops@acme\.test / \S{12,}", result.stdout)
    assert re.search(r"API key\s+svc_mk_[0-9A-Za-z]{38}\b", result.stdout)
    assert "Full access" in result.stdout


def test_the_default_database_is_sqlite_under_data(tmp_path: Path) -> None:
    result = supportdesk(
        "init",
        "--workspace",
        "Acme",
        "--admin-email",
        "ops@acme.test",
        database_url=None,
        cwd=tmp_path,
    )

    assert result.returncode == 0, result.stderr
    assert (tmp_path / "data" / "supportdesk.db").is_file()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--admin-email", "not-an-address"], "adminEmail: INVALID"),
        (["--admin-email", "ops@acme.test", "--admin-password", "short"], "adminPassword: INVALID"),
    ],
)
def test_bad_input_is_refused_clearly(tmp_path: Path, args: list[str], message: str) -> None:
    result = supportdesk(
        "init", "--workspace", "Acme", *args, database_url=f"sqlite:///{tmp_path / 'x.db'}"
    )

    assert result.returncode != 0
    assert message in result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout == ""


def test_an_unreachable_database_is_one_clear_line(tmp_path: Path) -> None:
    result = supportdesk(
        "init",
        "--workspace",
        "Acme",
        "--admin-email",
        "ops@acme.test",
        database_url="postgresql://postgres@127.0.0.1:1/nowhere",
        cwd=tmp_path,
    )

    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    assert "SUPPORTDESK_DATABASE_URL" in result.stderr
