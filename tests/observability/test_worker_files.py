"""A scrape in multi-process mode reads every worker's file, including one a worker has just
created and not yet sized (exposition.py, `WorkerFiles`)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from supportdesk.observability.exposition import MULTIPROCESS_DIRECTORY, render

COUNT_THREE = "from prometheus_client import Counter; Counter('answered', 'Answered.').inc(3)"


def test_a_workers_empty_file_neither_fails_the_scrape_nor_hides_the_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A worker that counted three requests, in a process of its own as workers are.
    worker_env = {**os.environ, MULTIPROCESS_DIRECTORY: str(tmp_path)}
    subprocess.run([sys.executable, "-c", COUNT_THREE], env=worker_env, check=True)
    # Another worker in the moment between creating its file and sizing it.
    (tmp_path / "counter_999999.db").touch()
    monkeypatch.setenv(MULTIPROCESS_DIRECTORY, str(tmp_path))

    body, content_type = render(None)

    assert content_type.startswith("text/plain")
    assert b"answered_total 3.0" in body
