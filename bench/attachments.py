"""`python -m bench attachments`: how fast a 1 MB attachment goes up (createAttachmentUpload,
then the PUT) and comes down (GET) through one `supportdesk serve` worker on SQLite with
local storage, in MB/s, beside the floor: the same bytes copied into a file and back through
one uvicorn worker that does nothing else (bench/file_floor.py). One client, one request at
a time, each file of its own random bytes (identical ones would be stored once)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from bench.servers import ROOT, Server, _supportdesk, bench_env, free_port, ours

SIZE = 1024 * 1024
FILES = 60
WARMUP = 10
UPLOAD = """mutation($input: CreateAttachmentUploadInput!) {
  createAttachmentUpload(input: $input) { uploadUrl attachment { downloadUrl } error { code } } }"""


def _cli(env: dict[str, str], *arguments: str) -> dict[str, Any]:
    done = subprocess.run(
        [_supportdesk(), *arguments, "--json"], env={**os.environ, **env},
        capture_output=True, text=True, check=True, cwd=ROOT,
    )  # fmt: skip
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer


def _key(database_url: str) -> str:
    env = {**bench_env(), "SUPPORTDESK_DATABASE_URL": database_url}
    made = _cli(env, "init", "--workspace", "Files", "--admin-email", "ops@example.com",
                "--admin-password", "a long bench password")  # fmt: skip
    key = _cli(env, "keys", "create", "--workspace", made["workspace_id"], "--name", "bench",
               "--scopes", "issues:read,issues:write")  # fmt: skip
    return str(key["api_key"])


def _ours(client: httpx.Client, files: list[bytes]) -> tuple[float, float]:
    """Seconds to upload every file, then to download every one."""
    urls = []
    started = time.perf_counter()
    for n, body in enumerate(files):
        variables = {"input": {"fileName": f"{n}.bin", "sizeBytes": len(body)}}
        made = client.post("/graphql", json={"query": UPLOAD, "variables": variables}).json()
        upload = made["data"]["createAttachmentUpload"]
        assert client.put(upload["uploadUrl"], content=body).status_code == 201
        urls.append(upload["attachment"]["downloadUrl"])
    uploaded = time.perf_counter()
    for url in urls:
        assert len(client.get(url).content) == SIZE
    return uploaded - started, time.perf_counter() - uploaded


def _floor(client: httpx.Client, files: list[bytes]) -> tuple[float, float]:
    started = time.perf_counter()
    for n, body in enumerate(files):
        assert client.put(f"/files/{n}.bin", content=body).status_code == 201
    uploaded = time.perf_counter()
    for n in range(len(files)):
        assert len(client.get(f"/files/{n}.bin").content) == SIZE
    return uploaded - started, time.perf_counter() - uploaded


def _rates(seconds: tuple[float, float], count: int) -> dict[str, float]:
    megabytes = count * SIZE / 1e6
    return {"upload_mb_s": round(megabytes / seconds[0], 1),
            "download_mb_s": round(megabytes / seconds[1], 1)}  # fmt: skip


def measure(files: int = FILES) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="bench-attachments-") as folder:
        base = Path(folder)
        database_url = f"sqlite:///{base / 'data' / 'bench.db'}"
        key = _key(database_url)
        server = ours(database_url, 1, dispatch=False, name="ours-attachments")
        port = free_port()
        copy = ["--port", str(port), "--folder", str(base / "floor")]
        floor = Server(
            "file-floor",
            [sys.executable, "-m", "bench.file_floor", *copy],
            port,
            env={"PYTHONPATH": str(ROOT)},
        )
        bodies = [os.urandom(SIZE) for _ in range(WARMUP + files)]
        server.start(base / "logs")
        floor.start(base / "logs")
        try:
            headers = {"Authorization": f"Bearer {key}"}
            with httpx.Client(base_url=server.url, headers=headers, timeout=60) as client:
                _ours(client, bodies[:WARMUP])
                ours_seconds = _ours(client, bodies[WARMUP:])
            with httpx.Client(base_url=floor.url, timeout=60) as client:
                _floor(client, bodies[:WARMUP])
                floor_seconds = _floor(client, bodies[WARMUP:])
        finally:
            server.stop()
            floor.stop()
    result = {
        "file_bytes": SIZE,
        "files": files,
        "ours": _rates(ours_seconds, files),
        "floor": _rates(floor_seconds, files),
    }
    print(json.dumps({"attachments": result}, indent=2))
    return result


if __name__ == "__main__":
    measure()
