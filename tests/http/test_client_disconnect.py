"""A client that goes away before its body has arrived is no server error: the access line
says 499 at INFO, and nothing is logged at ERROR (a load run's last connections end so)."""

from __future__ import annotations

import json
import secrets
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.processes import ServeProcess, command_env, run_cli

pytestmark = pytest.mark.processes


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[ServeProcess, str]]:
    """`supportdesk serve` on a fresh SQLite database, and a Full-access key."""
    env = command_env(database_url=f"sqlite:///{tmp_path}/served.db")
    made = run_cli(env, "init", "--workspace", "Served", "--admin-email", "ops@example.com",
                   "--admin-password", "a long password", "--json")  # fmt: skip
    serve = ServeProcess(env).start()
    try:
        yield serve.wait_ready(), json.loads(made)["api_key"]
    finally:
        serve.stop()


def log_lines(serve: ServeProcess) -> list[dict[str, Any]]:
    return serve.json_lines()


def access_line(serve: ServeProcess, request_id: str) -> dict[str, Any]:
    """The request's access line, written once the server has seen the client go."""
    deadline = time.monotonic() + 10
    while True:
        lines = [line for line in log_lines(serve) if line.get("request_id") == request_id]
        access = [line for line in lines if line["logger"] == "supportdesk.access"]
        if access or time.monotonic() > deadline:
            assert len(access) == 1, (lines, serve.stderr)
            return access[0]
        time.sleep(0.02)


def send_part_and_go(port: int, path: str, headers: str, body: bytes) -> None:
    """A POST whose Content-Length promises 100 bytes more than are sent; then the
    connection closes."""
    head = f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{headers}"
    head += f"Content-Length: {len(body) + 100}\r\n\r\n"
    with socket.create_connection(("127.0.0.1", port), timeout=10) as connection:
        connection.sendall(head.encode() + body)


def assert_nothing_logged_as_an_error(serve: ServeProcess) -> None:
    logged = log_lines(serve)
    assert [entry for entry in logged if entry["level"] in ("error", "critical")] == []
    assert [entry for entry in logged if "traceback" in entry] == []
    assert "ClientDisconnect" not in serve.stderr


def test_a_client_that_disconnects_mid_body_is_logged_as_499_at_info(
    served: tuple[ServeProcess, str],
) -> None:
    serve, key = served
    request_id = f"gone-{secrets.token_hex(4)}"

    send_part_and_go(
        serve.port,
        "/graphql",
        f"Content-Type: application/json\r\nAuthorization: Bearer {key}\r\n"
        f"X-Request-Id: {request_id}\r\n",
        b'{"query": "{ apiInfo }"}',
    )

    line = access_line(serve, request_id)
    assert line["status"] == 499
    assert line["level"] == "info"
    assert line["key_prefix"] == key[:12]  # authenticated: it got as far as reading the body
    assert_nothing_logged_as_an_error(serve)


def test_a_settings_form_left_half_sent_is_logged_as_499_too(
    served: tuple[ServeProcess, str],
) -> None:
    serve, _ = served
    request_id = f"gone-{secrets.token_hex(4)}"

    send_part_and_go(
        serve.port,
        "/login",
        f"Content-Type: application/x-www-form-urlencoded\r\nX-Request-Id: {request_id}\r\n",
        b"email=ops%40example.com&password=a",
    )

    line = access_line(serve, request_id)
    assert (line["status"], line["level"]) == (499, "info")
    assert_nothing_logged_as_an_error(serve)
