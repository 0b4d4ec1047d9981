"""One structured access-log line per request, and `supportdesk serve` writing them as JSON
to stderr."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from supportdesk.http.access_log import AccessRecord
from tests.conftest import WorkspaceFixture
from tests.processes import command_env, free_port

BIN = Path(sys.executable).parent


@pytest.fixture
def workspace(module_workspace: WorkspaceFixture) -> WorkspaceFixture:
    return module_workspace


def access_line(caplog: pytest.LogCaptureFixture, request_id: str) -> dict[str, Any]:
    """The access line of one request. The server writes it just after the answer has
    gone, so it may need a moment to appear."""
    deadline = time.monotonic() + 10
    while True:
        lines = [
            r.fields  # type: ignore[attr-defined]
            for r in caplog.records
            if r.name == "supportdesk.access" and r.fields["request_id"] == request_id  # type: ignore[attr-defined]
        ]
        if lines or time.monotonic() > deadline:
            assert len(lines) == 1, lines
            return lines[0]
        time.sleep(0.01)


def test_each_request_is_logged_once_with_who_what_and_how_long(
    workspace: WorkspaceFixture, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="supportdesk.access")
    api = workspace.client()

    answer = api(
        "query Keys { apiKeys(first: 5) { edges { node { name } } } }", operationName="Keys"
    )

    line = access_line(caplog, answer.headers["x-request-id"])
    assert line["client"] == "127.0.0.1"
    assert line["user_agent"].startswith("python-httpx/")
    assert line["key_prefix"] == workspace.key[:12]
    assert line["workspace"] == workspace.id
    assert line["operation"] == "Keys"
    assert line["operation_type"] == "query"
    assert line["cost"] == 1 + 5 * 2
    assert line["status"] == 200
    assert set(AccessRecord.__slots__) <= set(line)  # every field of the record is logged
    assert line["method"] == "POST" and line["path"] == "/graphql"
    assert 0 < line["duration_ms"] < 30_000


def test_refused_requests_are_logged_too(
    workspace: WorkspaceFixture, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="supportdesk.access")
    api = workspace.client()

    not_a_key = api("{ apiInfo }", key="svc_mk_not-a-key")
    too_costly = " ".join(
        f"a{i}: apiKeys(first: 100) {{ edges {{ node {{ id }} }} }}" for i in range(50)
    )
    too_much = api(f"{{ {too_costly} }}")

    unauthenticated = access_line(caplog, not_a_key.headers["x-request-id"])
    refused = access_line(caplog, too_much.headers["x-request-id"])
    assert (unauthenticated["status"], unauthenticated["key_prefix"]) == (401, None)
    assert refused["status"] == 400
    assert refused["cost"] == 50 * (1 + 100 * 2)
    assert refused["key_prefix"] == workspace.key[:12]


def test_supportdesk_serve_writes_json_access_lines_to_stderr(tmp_path: Path) -> None:
    env = command_env(database_url=f"sqlite:///{tmp_path}/served.db")
    made = subprocess.run(
        [BIN / "supportdesk", "init", "--workspace", "Served", "--admin-email",
         "ops@example.com", "--admin-password", "a long password", "--json"],
        env=env, check=True, capture_output=True, text=True,
    )  # fmt: skip
    key = json.loads(made.stdout)["api_key"]
    port = free_port()
    stderr_path = tmp_path / "stderr.log"
    with stderr_path.open("wb") as stderr:
        server = subprocess.Popen(
            [BIN / "supportdesk", "serve", "--port", str(port), "--workers", "1"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )
        try:
            base_url = f"http://127.0.0.1:{port}"
            deadline = time.monotonic() + 30
            while True:
                try:
                    httpx.get(f"{base_url}/healthz", timeout=1)
                    break
                except httpx.TransportError:
                    assert time.monotonic() < deadline, stderr_path.read_text()
                    time.sleep(0.1)
            answer = httpx.post(
                f"{base_url}/graphql",
                json={"query": "query Who { apiInfo }"},
                headers={"Authorization": f"Bearer {key}"},
            )
        finally:
            server.terminate()
            server.wait(timeout=15)

    text = stderr_path.read_text()
    lines = [json.loads(line) for line in text.splitlines() if line.startswith("{")]
    [graphql] = [line for line in lines if line.get("path") == "/graphql"]
    assert graphql["logger"] == "supportdesk.access"
    assert graphql["request_id"] == answer.headers["x-request-id"]
    assert graphql["operation"] == "Who"
    assert graphql["key_prefix"] == key[:12]
    assert graphql["status"] == 200
    assert key not in text
