"""graphql-http's GraphQL-over-HTTP audit suite (`make audit`): no MUST failure, at most 3
SHOULD warnings. Needs node and npm: skipped without them, except in CI."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import WorkspaceFixture
from tests.servers import IN_CI, RunningServer

AUDIT = Path(__file__).resolve().parents[2] / "tools" / "audit.py"
SUMMARY = re.compile(r"(\d+) ok, (\d+) MUST failures, (\d+) SHOULD warnings")


@pytest.fixture(scope="module", autouse=True)
def node_tools() -> None:
    missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    if missing:
        if IN_CI:
            pytest.fail(f"the audit needs {' and '.join(missing)} in CI")
        pytest.skip(f"the audit needs {' and '.join(missing)}")


def run_audit(*arguments: str, key: str | None = None) -> tuple[int, int, int, str]:
    env = {**os.environ, **({"SUPPORTDESK_AUDIT_KEY": key} if key else {})}
    done = subprocess.run(
        [sys.executable, AUDIT, *arguments],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    output = done.stdout + done.stderr
    found = SUMMARY.search(output)
    assert found, output
    ok, failures, warnings = map(int, found.groups())
    assert done.returncode == 0, output
    return ok, failures, warnings, output


def test_the_audit_passes_against_each_backend(
    server: RunningServer, module_workspace: WorkspaceFixture
) -> None:
    ok, failures, warnings, output = run_audit(
        "--url", f"{server.base_url}/graphql", key=module_workspace.key
    )

    assert failures == 0, output
    assert warnings <= 3, output
    assert ok >= 50, output


def test_make_audit_starts_and_stops_its_own_server() -> None:
    _ok, failures, warnings, output = run_audit()

    assert failures == 0, output
    assert warnings <= 3, output
