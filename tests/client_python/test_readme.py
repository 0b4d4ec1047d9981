"""The README's Python tour runs as written, against a real server."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import WorkspaceFixture

README = Path(__file__).resolve().parents[2] / "clients" / "python" / "README.md"
PYTHON_BLOCK = re.compile(r"^```python\n(.*?)^```", re.DOTALL | re.MULTILINE)


def run_client_tour(
    base_url: str,
    key: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> str:
    """Every Python block of the README, in order, in one namespace; what they printed."""
    blocks = PYTHON_BLOCK.findall(README.read_text())
    assert len(blocks) >= 8
    monkeypatch.setenv("SUPPORTDESK_URL", base_url)
    monkeypatch.setenv("SUPPORTDESK_API_KEY", key)
    namespace: dict[str, object] = {"__name__": "readme"}
    capsys.readouterr()  # only what the tour prints
    for number, block in enumerate(blocks, start=1):
        exec(compile(block, f"README.md python block {number}", "exec"), namespace)  # noqa: S102
    return capsys.readouterr().out


def test_the_readme_tour_runs_as_written(
    workspace: WorkspaceFixture, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    printed = run_client_tour(workspace.server.base_url, workspace.key, monkeypatch, capsys)

    assert "Test workspace" in printed
    assert "Grace Hopper - We were charged twice this month." in printed
    assert "VALIDATION_FAILED {'subject': 'REQUIRED', 'requesterEmail': 'INVALID'}" in printed
    assert "NOT_FOUND ['issue']" in printed
    assert "['Billing']" in printed
    assert "Invoice shows the wrong amount" in printed
