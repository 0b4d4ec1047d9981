"""`supportdesk init` tells the org admin where people log in, where the settings page is
and with what."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.processes import SUPPORTDESK, command_env


def run_init(tmp_path: Path, *args: str) -> str:
    env = command_env(database_url=f"sqlite:///{tmp_path / 'sd.db'}")
    done = subprocess.run(
        [str(SUPPORTDESK), "init", "--workspace", "Demo", "--admin-email", "a@example.com", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=True,
    )
    return done.stdout


def test_init_prints_the_admin_login_and_the_settings_address(tmp_path: Path) -> None:
    out = run_init(tmp_path, "--base-url", "http://support.example.test:9000/")

    lines = dict(
        line.split(None, 1)
        for line in out.splitlines()
        if line.startswith(("Admin", "Settings", "Log in"))
    )
    assert lines["Admin"].startswith("login a@example.com / ")
    assert lines["Log"].startswith("in at   http://support.example.test:9000/login ")
    assert lines["Settings"].startswith("http://support.example.test:9000/settings/api ")


def test_init_json_carries_the_settings_address(tmp_path: Path) -> None:
    data = json.loads(run_init(tmp_path, "--json"))

    assert data["settings_url"] == "http://127.0.0.1:8000/settings/api"
    assert data["login_url"] == "http://127.0.0.1:8000/login"
    assert data["admin_email"] == "a@example.com"
    assert len(data["admin_password"]) >= 12
