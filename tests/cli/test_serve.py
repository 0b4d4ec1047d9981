"""`supportdesk init` then `supportdesk serve`, as `make run` does: the printed key answers
`{ apiInfo }` over real HTTP, and a request without it gets 401."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.cli.runner import COMMAND, json_of, supportdesk
from tests.tenancy import SUBPROCESS_STATEMENTS


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def served(fresh_database: str, tmp_path: Path) -> Iterator[tuple[str, dict[str, str]]]:
    """The base URL of a served fresh database, and what init printed."""
    made = json_of(
        supportdesk(
            "init",
            "--workspace",
            "Demo",
            "--admin-email",
            "admin@example.com",
            "--json",
            database_url=fresh_database,
            cwd=tmp_path,
        )
    )
    port = free_port()
    process = subprocess.Popen(
        [
            str(COMMAND),
            "serve",
            "--port",
            str(port),
            "--workers",
            "1",
            "--database-url",
            fresh_database,
        ],
        cwd=tmp_path,
        env=SUBPROCESS_STATEMENTS.traced(dict(os.environ)),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, process.stdout.read() if process.stdout else ""
            try:
                if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "supportdesk serve did not come up"
            time.sleep(0.1)
        yield base, made
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_the_printed_key_answers_api_info(served: tuple[str, dict[str, str]]) -> None:
    base, made = served

    response = httpx.post(
        f"{base}/graphql",
        json={"query": "{ apiInfo }"},
        headers={"Authorization": f"Bearer {made['api_key']}"},
        timeout=30,
    )

    assert response.status_code == 200
    info = response.json()["data"]["apiInfo"]
    assert info["workspace"] == {"id": made["workspace_id"], "name": "Demo"}
    assert info["key"]["keyPrefix"] == made["api_key"][:12]
    assert set(info) == {"apiVersion", "workspace", "key", "machineUser"}


def test_without_a_key_the_answer_is_401(served: tuple[str, dict[str, str]]) -> None:
    base, _ = served

    response = httpx.post(f"{base}/graphql", json={"query": "{ apiInfo }"}, timeout=30)

    assert response.status_code == 401
    assert response.headers["www-authenticate"] == "Bearer"
    assert response.json()["errors"][0]["extensions"] == {
        "code": "UNAUTHENTICATED",
        "reason": "missing",
    }


@pytest.mark.parametrize("redis", [False, True])
def test_without_redis_one_worker_serves_unless_more_are_asked_for(
    fresh_database: str, tmp_path: Path, redis: bool
) -> None:
    """Each worker counts rate limits on its own: without Redis, the default is one worker,
    so that a key's limit holds as set (CONTRACT section 8)."""
    env = {k: v for k, v in os.environ.items() if k != "SUPPORTDESK_REDIS_URL"}
    if redis:
        env["SUPPORTDESK_REDIS_URL"] = "redis://127.0.0.1:6379/0"
    supportdesk("migrate", database_url=fresh_database, cwd=tmp_path)
    command = [str(COMMAND), "serve", "--port", str(free_port())]
    process = subprocess.Popen(
        [*command, "--database-url", fresh_database],
        cwd=tmp_path,
        env=SUBPROCESS_STATEMENTS.traced(env),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdout is not None
        first_line = process.stdout.readline()
    finally:
        process.terminate()
        process.wait(timeout=30)

    cores = len(os.sched_getaffinity(0))
    expected = cores if redis else 1
    assert first_line.rstrip().endswith(f"({expected} worker{'s' * (expected > 1)})")


def test_a_port_in_use_is_named_with_what_to_do_not_a_traceback(
    fresh_database: str, tmp_path: Path
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]

        supportdesk("migrate", database_url=fresh_database, cwd=tmp_path)
        result = supportdesk(
            "serve", "--port", str(port), database_url=fresh_database, cwd=tmp_path
        )

    assert result.returncode == 1
    assert f"Error: Cannot listen on 127.0.0.1:{port}: Address already in use." in result.stderr
    assert "--port" in result.stderr
    assert "Traceback" not in result.stderr + result.stdout


def test_serve_warns_when_passwords_are_hashed_for_the_tests(
    fresh_database: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The suite hashes with Argon2's cheapest parameters; a deployment must never.
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        supportdesk("migrate", database_url=fresh_database, cwd=tmp_path)
        monkeypatch.setenv("SUPPORTDESK_TEST_FAST_PASSWORD_HASHES", "1")
        fast = supportdesk("serve", "--port", port, database_url=fresh_database, cwd=tmp_path)
        monkeypatch.setenv("SUPPORTDESK_TEST_FAST_PASSWORD_HASHES", "0")
        real = supportdesk("serve", "--port", port, database_url=fresh_database, cwd=tmp_path)

    assert "SUPPORTDESK_TEST_FAST_PASSWORD_HASHES is set" in fast.stderr
    assert "SUPPORTDESK_TEST_FAST_PASSWORD_HASHES" not in real.stderr
