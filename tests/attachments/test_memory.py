"""A 20 MB file goes in and out of a `supportdesk serve` worker as a stream: the worker's
memory grows by less than 10 MB. With no storage setting, the bytes land in the folder
`attachments` beside the SQLite file."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.attachments.helpers import CREATE_ISSUE, CREATE_UPLOAD
from tests.http.test_document_memory import resident_mb
from tests.processes import ServeProcess, command_env, run_cli

pytestmark = pytest.mark.slow

BIG = 20 * 1024 * 1024
PIECE = 64 * 1024


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[ServeProcess, str]]:
    """One worker, as deployed, on SQLite in `tmp_path`, and a key that writes and reads."""
    env = command_env(database_url=f"sqlite:///{tmp_path}/served.db", webhook_dispatch="false")
    initialised = run_cli(env, "init", "--workspace", "Files", "--admin-email",
                          "ops@example.com", "--admin-password", "a long password", "--json")  # fmt: skip
    workspace_id = json.loads(initialised)["workspace_id"]
    made = run_cli(env, "keys", "create", "--workspace", workspace_id, "--name", "files",
                   "--scopes", "issues:read,issues:write", "--json")  # fmt: skip
    serve = ServeProcess(env).start()
    try:
        yield serve.wait_ready(), json.loads(made)["api_key"]
    finally:
        serve.stop()


def pieces(seed: bytes, size: int) -> Iterator[bytes]:
    """`size` bytes made as they are sent: the test holds none of them."""
    for n in range(size // PIECE):
        yield hashlib.sha256(seed + n.to_bytes(4, "big")).digest() * (PIECE // 32)


def send_and_fetch(client: httpx.Client, seed: bytes, size: int) -> tuple[str, str]:
    """Upload `size` bytes, attach them, download them; the digests sent and got."""
    variables = {"input": {"fileName": f"{seed.hex()}.bin", "sizeBytes": size}}
    made = client.post("/graphql", json={"query": CREATE_UPLOAD, "variables": variables})
    upload = made.json()["data"]["createAttachmentUpload"]
    sent = hashlib.sha256()

    def body() -> Iterator[bytes]:
        for piece in pieces(seed, size):
            sent.update(piece)
            yield piece

    answer = client.put(upload["uploadUrl"], content=body(), headers={"Content-Length": str(size)})
    assert answer.status_code == 201, answer.text
    issue = {"subject": "Big", "body": "b", "requesterEmail": "a@example.com",
             "attachmentIds": [upload["attachment"]["id"]]}  # fmt: skip
    created = client.post("/graphql", json={"query": CREATE_ISSUE, "variables": {"input": issue}})
    assert created.json()["data"]["createIssue"]["error"] is None
    got = hashlib.sha256()
    with client.stream("GET", upload["attachment"]["downloadUrl"]) as fetched:
        assert fetched.status_code == 200
        for chunk in fetched.iter_bytes():
            got.update(chunk)
    return sent.hexdigest(), got.hexdigest()


def test_a_20_mb_file_passes_through_the_worker_as_a_stream(
    served: tuple[ServeProcess, str], tmp_path: Path
) -> None:
    serve, key = served
    with httpx.Client(
        base_url=serve.base_url, headers={"Authorization": f"Bearer {key}"}, timeout=120
    ) as client:
        for n in range(3):  # warm: what the first requests allocate for good
            send_and_fetch(client, b"warm%d" % n, 2 * 1024 * 1024)
        before = resident_mb(serve.pid)

        sent, got = send_and_fetch(client, b"big", BIG)

        grown = resident_mb(serve.pid) - before
    assert sent == got
    assert grown < 10, f"the worker grew by {grown:.1f} MB"
    stored = [p for p in (tmp_path / "attachments").rglob("*") if p.is_file()]
    assert BIG in {os.path.getsize(p) for p in stored}
