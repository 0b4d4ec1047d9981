"""In CI the storage tests must run on PostgreSQL too: a missing PostgreSQL fails the run
there, and only skips on a developer's machine."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
UNREACHABLE = "postgresql://postgres@127.0.0.1:1/test"


def pytest_on_postgresql(ci: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CI": ci, "SUPPORTDESK_TEST_POSTGRES_URL": UNREACHABLE}
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-k",
            "postgresql",
            "tests/graphql/test_api_info.py",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_a_missing_postgresql_fails_the_tests_in_ci() -> None:
    result = pytest_on_postgresql("true")

    assert result.returncode != 0, result.stdout
    assert "PostgreSQL is required in CI" in result.stdout


def test_a_missing_postgresql_skips_outside_ci() -> None:
    result = pytest_on_postgresql("false")

    assert result.returncode == 0, result.stdout
    assert "skipped" in result.stdout and "passed" not in result.stdout
