"""The README's Python tour runs as written, against a real server."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import WorkspaceFixture

README = Path(__file__).resolve().parents[2] / "clients" / "python" / "README.md"
PYTHON_BLOCK = re.compile(r"^```python\n(.*?)^```", re.DOTALL | re.MULTILINE)


def test_the_readme_tour_runs_as_written(
    workspace: WorkspaceFixture, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    blocks = PYTHON_BLOCK.findall(README.read_text())
    monkeypatch.setenv("SUPPORTDESK_URL", workspace.server.base_url)
    monkeypatch.setenv("SUPPORTDESK_API_KEY", workspace.key)
    namespace: dict[str, object] = {"__name__": "readme"}

    for number, block in enumerate(blocks, start=1):
        exec(compile(block, f"README.md python block {number}", "exec"), namespace)  # noqa: S102

    printed = capsys.readouterr().out
    assert len(blocks) >= 8
    assert "Test workspace" in printed
    assert "Ada Lovelace - The login page says my password is wrong." in printed
    assert "VALIDATION_FAILED {'subject': 'REQUIRED', 'requesterEmail': 'INVALID'}" in printed
    assert "NOT_FOUND ['issue']" in printed
    assert "['Login']" in printed
    assert "Cannot log in" in printed
