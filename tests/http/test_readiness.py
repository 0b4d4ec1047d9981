"""/readyz with Redis configured (docs/deploy.md): Redis is checked and reported, and its
outage leaves the process ready but degraded, since every process shares it and each still
serves. (The database's checks: test_health.py.)"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.processes import free_port
from tests.servers import RunningServer


def probe(server: RunningServer, path: str) -> httpx.Response:
    return httpx.get(f"{server.base_url}{path}", timeout=10)


@pytest.fixture
def without_redis(sqlite_url: str) -> Iterator[RunningServer]:
    """Redis configured, but nothing listens where it is said to be."""
    running = RunningServer(
        "sqlite", sqlite_url, redis_url=f"redis://127.0.0.1:{free_port()}/0"
    ).start()
    yield running
    running.stop()


def test_ready_with_redis_checks_redis_too(default_limits_server: RunningServer) -> None:
    answer = probe(default_limits_server, "/readyz")

    expected = {"database": "ok"}
    if default_limits_server.settings.redis_url:
        expected["redis"] = "ok"
    assert answer.status_code == 200
    assert answer.json()["checks"] == expected


def test_unreachable_redis_leaves_the_process_ready_but_degraded(
    without_redis: RunningServer,
) -> None:
    answer = probe(without_redis, "/readyz")

    assert answer.status_code == 200
    assert answer.json() == {
        "status": "degraded",
        "checks": {"database": "ok", "redis": "unavailable"},
    }
    assert probe(without_redis, "/healthz").status_code == 200
