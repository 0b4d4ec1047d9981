"""The README's tour runs as written: its shell blocks, pasted in order into bash beside a
fresh `make run` (here what it runs: `supportdesk init`, then `supportdesk serve` on a new
SQLite database), answer what the README says. The Python client's tour, run after it in
the same workspace, does not trip over what it made."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.client_python.test_readme import run_client_tour
from tests.processes import ServeProcess, command_env, run_cli
from tests.servers import IN_CI

pytestmark = [pytest.mark.processes, pytest.mark.slow]

README = Path(__file__).resolve().parents[1] / "README.md"
# The one line a reader changes: the key `make run` printed goes in its place.
KEY_LINE = "export SUPPORTDESK_API_KEY=svc_mk_...   # the key make run printed"
MAKE_RUN_URL = "http://127.0.0.1:8000"
SH_BLOCK = re.compile(r"^```sh\n(.*?)^```", re.DOTALL | re.MULTILINE)


def tour_script() -> str:
    """The shell blocks of the README's "A tour" section, in order."""
    text = README.read_text()
    start = text.index("\n## A tour\n")
    end = text.index("\n## ", start + 1)
    return "\n".join(SH_BLOCK.findall(text[start:end]))


@dataclass
class Demo:
    base_url: str
    key: str


@pytest.fixture
def demo(tmp_path: Path) -> Iterator[Demo]:
    """What `make run` makes: a Demo workspace on a new SQLite database, served."""
    for tool in ("bash", "curl", "jq"):
        if shutil.which(tool) is None:
            message = f"the README's tour needs {tool} (make test-tools installs it)"
            if IN_CI:
                pytest.fail(message)
            pytest.skip(message)
    env = command_env(database_url=f"sqlite:///{tmp_path / 'data' / 'supportdesk.db'}")
    made = json.loads(
        run_cli(env, "init", "--workspace", "Demo", "--admin-email", "admin@example.com", "--json")
    )
    serve = ServeProcess(env).start()
    try:
        yield Demo(serve.wait_ready().base_url, made["api_key"])
    finally:
        serve.stop()


def run_tour(demo: Demo) -> str:
    """The tour pasted into bash with the demo's key and address; what it printed."""
    script = tour_script()
    assert script.count(KEY_LINE) == 1
    assert MAKE_RUN_URL in script
    script = script.replace(KEY_LINE, f"export SUPPORTDESK_API_KEY={demo.key}")
    script = script.replace(MAKE_RUN_URL, demo.base_url)
    shell_env = {k: v for k, v in os.environ.items() if not k.startswith("SUPPORTDESK_")}
    done = subprocess.run(
        ["bash", "-c", f"set -euo pipefail\n{script}"],
        env=shell_env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, f"{done.stdout}\n{done.stderr}"
    assert done.stderr == ""
    return done.stdout


def test_the_shell_tour_runs_as_written(demo: Demo) -> None:
    printed = run_tour(demo)

    assert '"workspace":{"id":"ws_' in printed and '"name":"Demo"' in printed
    assert re.search(r"^iss_[0-9A-Z]{26}$", printed, re.MULTILINE)
    assert (
        '"senderName":"Ada Lovelace","body":"The login page says my password is wrong."' in printed
    )
    assert '"replyToIssue":{"issue":{"status":"pending","messageCount":2},"error":null}' in printed
    assert '"addNote":{"message":{"visibility":"internal"},"error":null}' in printed
    assert '"labels":[{"name":"Login"}]' in printed
    assert '{"data":{"issues":{"totalCount":1,"edges":[{"node":{"ticketNumber":1' in printed
    assert '"assignee":{"email":"admin@example.com"}' in printed
    assert '{"data":{"issues":{"totalCount":1}}' in printed
    assert '"code":"FORBIDDEN","requiredScopes":["machine_users:manage"]' in printed
    assert '"revokeApiKey":{"apiKey":{"status":"revoked"},"error":null}' in printed
    assert '"code":"UNAUTHENTICATED","reason":"revoked"' in printed
    assert '"error":{' not in printed  # every mutation happened
    last_line = printed.strip().splitlines()[-1]
    assert json.loads(last_line) == [
        "1 member.created",
        "2 machine_user.created",
        "3 api_key.created",
        "4 contact.created",
        "5 issue.created",
        "6 message.created",
        "7 issue.updated",
        "8 message.created",
        "9 label.created",
        "10 issue.labels_changed",
        "11 issue.assigned",
        "12 machine_user.created",
        "13 api_key.created",
        "14 api_key.revoked",
    ]


def test_the_client_tour_runs_after_it_in_the_same_workspace(
    demo: Demo, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    run_tour(demo)

    printed = run_client_tour(demo.base_url, demo.key, monkeypatch, capsys)

    assert "Demo svc_mk_" in printed
    assert "['Billing']" in printed
