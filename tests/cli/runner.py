"""Running the installed `supportdesk` command as a subprocess, as an operator would."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from sqlalchemy.engine import make_url

from tests.tenancy import SUBPROCESS_STATEMENTS

COMMAND = Path(sys.executable).parent / "supportdesk"


def supportdesk(
    *args: str, database_url: str | None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the command with SUPPORTDESK_DATABASE_URL set (unset when None); never raises
    on a failing exit."""
    env = {k: v for k, v in os.environ.items() if k != "SUPPORTDESK_DATABASE_URL"}
    if database_url is not None:
        env["SUPPORTDESK_DATABASE_URL"] = database_url
    env = SUBPROCESS_STATEMENTS.traced(env)  # its statements join the tenancy check
    return subprocess.run(
        [str(COMMAND), *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def json_of(result: subprocess.CompletedProcess[str]) -> Any:
    """The one JSON line a successful `--json` command prints."""
    assert result.returncode == 0, result.stderr
    lines = result.stdout.strip().splitlines()
    assert len(lines) == 1, result.stdout
    return json.loads(lines[0])


def operator_url(async_url: str) -> str:
    """The URL as an operator writes it (postgresql://, sqlite:///), not the driver's form."""
    url = make_url(async_url)
    return url.set(drivername=url.get_backend_name()).render_as_string(hide_password=False)
