"""Servers whose attachments live on local disk or in S3 (a real moto server on
loopback, with request signing), on SQLite and PostgreSQL, shared by the session."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator

import httpx
import pytest

from tests.conftest import TEST_SECRET_KEY, WorkspaceFixture, make_workspace
from tests.servers import IN_CI, RunningServer

BACKENDS = ["sqlite", "postgresql"]
STORAGES = ["local", "s3"]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="session")
def s3_endpoint() -> Iterator[str]:
    """`moto_server` on loopback; the AWS_* variables the store reads, for its account."""
    executable = shutil.which("moto_server") or os.path.join(
        os.path.dirname(sys.executable), "moto_server"
    )
    if not os.path.exists(executable):
        if IN_CI:
            pytest.fail("moto_server is required in CI (the dev extras install it)")
        pytest.skip("moto_server is not installed")
    port = _free_port()
    process = subprocess.Popen(
        [executable, "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    endpoint = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            httpx.get(endpoint, timeout=1)
            break
        except httpx.TransportError:
            if time.monotonic() > deadline or process.poll() is not None:
                process.kill()
                raise RuntimeError("moto_server did not start") from None
            time.sleep(0.1)
    saved = {name: os.environ.get(name) for name in _AWS}
    os.environ.update(_AWS)
    yield endpoint
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    process.terminate()
    process.wait(timeout=10)


_AWS = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_REGION": "us-east-1",
}


@pytest.fixture(scope="session", params=[(b, s) for b in BACKENDS for s in STORAGES],
                ids=lambda p: f"{p[0]}-{p[1]}")  # fmt: skip
def attachment_server(request: pytest.FixtureRequest) -> Iterator[RunningServer]:
    backend, storage = request.param
    url = request.getfixturevalue(f"{backend}_url")
    with tempfile.TemporaryDirectory(prefix="supportdesk-files-") as folder:
        settings: dict[str, object] = {"storage_url": f"file://{folder}"}
        if storage == "s3":
            endpoint = request.getfixturevalue("s3_endpoint")
            bucket = f"files-{backend}"
            assert httpx.put(f"{endpoint}/{bucket}").status_code == 200
            settings = {"storage_url": f"s3://{bucket}/desk", "s3_endpoint_url": endpoint}
        running = RunningServer(
            backend,
            url,
            failed_auth_per_minute=1_000_000,
            secret_key=TEST_SECRET_KEY,
            attachment_max_bytes=SMALL_LIMIT,
            **settings,
        ).start()
        yield running
        running.stop()


# Small, so that a test can go past it cheaply.
SMALL_LIMIT = 3 * 1024 * 1024


@pytest.fixture
def desk(attachment_server: RunningServer) -> WorkspaceFixture:
    return make_workspace(attachment_server)


@pytest.fixture
def other_desk(attachment_server: RunningServer) -> WorkspaceFixture:
    return make_workspace(attachment_server, "Other workspace")
