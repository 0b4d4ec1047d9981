"""Rate limits (CONTRACT sections 7 and 8) on both limiter backends: in this process and in
Redis."""

from __future__ import annotations

import asyncio
import math
import secrets
import time
from collections.abc import Iterator

import httpx
import pytest

from supportdesk.auth.keys import generate_secret
from supportdesk.http.rate_limit import RedisRateLimiter
from tests.conftest import WorkspaceFixture, make_workspace
from tests.servers import RunningServer

FULL = ["api_keys:manage", "audit:read", "machine_users:manage"]


def client(server: RunningServer, key: str | None, address: str | None = None) -> httpx.Client:
    """Keep-alive client; `address` poses as another client address (test servers trust
    X-Forwarded-For from 127.0.0.1: tests/servers.py)."""
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    if address:
        headers["X-Forwarded-For"] = address
    return httpx.Client(base_url=server.base_url, headers=headers, timeout=30)


def query(http: httpx.Client, document: str = "{ __typename }") -> httpx.Response:
    return http.post("/graphql", json={"query": document})


def code(response: httpx.Response) -> str:
    code: str = response.json()["errors"][0]["extensions"]["code"]
    return code


def fresh_address() -> str:
    """A client address no other test uses (198.18.0.0/15 is set aside for tests)."""
    return f"198.{18 + secrets.randbelow(2)}.{secrets.randbelow(256)}.{secrets.randbelow(256)}"


@pytest.fixture(scope="module")
def throttled_workspace(throttled_server: RunningServer) -> WorkspaceFixture:
    return make_workspace(throttled_server)


@pytest.fixture
def fresh_key(throttled_workspace: WorkspaceFixture) -> str:
    return throttled_workspace.create_key(FULL)


def test_the_601st_request_in_a_minute_is_refused_by_default(
    default_limits_server: RunningServer,
) -> None:
    workspace = make_workspace(default_limits_server)
    other_key = workspace.create_key(FULL)

    with client(default_limits_server, workspace.key) as http:
        answers = [query(http) for _ in range(601)]
    with client(default_limits_server, other_key) as http:
        other = query(http)

    assert [a.status_code for a in answers[:600]] == [200] * 600
    assert [int(a.headers["x-ratelimit-remaining"]) for a in answers[:600]] == list(
        range(599, -1, -1)
    )
    refused = answers[600]
    assert refused.status_code == 429
    assert code(refused) == "RATE_LIMITED"
    assert 1 <= int(refused.headers["retry-after"]) <= 60
    assert refused.headers["x-ratelimit-limit"] == "600"
    assert refused.headers["x-ratelimit-remaining"] == "0"
    assert refused.json()["errors"][0]["extensions"]["retryAfter"] == int(
        refused.headers["retry-after"]
    )
    assert other.status_code == 200
    assert other.headers["x-ratelimit-remaining"] == "599"


def test_every_authenticated_answer_carries_the_rate_limit_headers(
    throttled_server: RunningServer, fresh_key: str
) -> None:
    with client(throttled_server, fresh_key) as http:
        before = time.time()
        answers = [
            query(http),
            http.post("/graphql", content=b"{oops", headers={"Content-Type": "application/json"}),
            http.post("/graphql", content=b"{}", headers={"Content-Type": "text/plain"}),
            query(http),
        ]

    assert [a.status_code for a in answers] == [200, 400, 415, 429]
    assert [a.headers["x-ratelimit-limit"] for a in answers] == ["3"] * 4
    assert [a.headers["x-ratelimit-remaining"] for a in answers] == ["2", "1", "0", "0"]
    resets = {int(a.headers["x-ratelimit-reset"]) for a in answers}
    assert len(resets) == 1
    assert math.floor(before) < resets.pop() <= math.ceil(time.time()) + 60
    assert "retry-after" not in answers[0].headers
    assert code(answers[3]) == "RATE_LIMITED"


def test_one_key_spent_leaves_another_key_untouched(
    throttled_server: RunningServer, throttled_workspace: WorkspaceFixture
) -> None:
    spent, untouched = throttled_workspace.create_key(FULL), throttled_workspace.create_key(FULL)

    with client(throttled_server, spent) as http:
        statuses = [query(http).status_code for _ in range(4)]
    with client(throttled_server, untouched) as http:
        other = query(http)

    assert statuses == [200, 200, 200, 429]
    assert other.status_code == 200
    assert other.headers["x-ratelimit-remaining"] == "2"


def test_failed_authentications_past_the_limit_get_429_but_valid_keys_still_pass(
    throttled_server: RunningServer, fresh_key: str
) -> None:
    address = fresh_address()
    unknown_key = generate_secret("standard")

    with client(throttled_server, unknown_key, address) as http:
        failures = [query(http) for _ in range(3)]
    with client(throttled_server, None, address) as http:
        missing = query(http)
    with client(throttled_server, fresh_key, address) as http:
        valid = query(http)
    with client(throttled_server, unknown_key, fresh_address()) as http:
        elsewhere = query(http)

    assert [f.status_code for f in failures] == [401, 401, 429]
    assert code(failures[2]) == "RATE_LIMITED"
    assert 1 <= int(failures[2].headers["retry-after"]) <= 60
    assert missing.status_code == 429
    assert valid.status_code == 200
    assert elsewhere.status_code == 401


@pytest.fixture
def second_redis_server(throttled_server: RunningServer) -> Iterator[RunningServer]:
    """Another process's view: a second server on the same Redis bucket prefix."""
    settings = throttled_server.settings
    second = RunningServer(
        "sqlite",
        throttled_server.database_url,
        redis_url=settings.redis_url,
        rate_limit_prefix=settings.rate_limit_prefix,
        rate_limit_per_minute=settings.rate_limit_per_minute,
        failed_auth_per_minute=settings.failed_auth_per_minute,
    ).start()
    yield second
    second.stop()


@pytest.mark.parametrize("throttled_server", ["redis"], indirect=True)
def test_redis_shares_a_key_s_limit_between_processes(
    throttled_server: RunningServer, second_redis_server: RunningServer, fresh_key: str
) -> None:
    with (
        client(throttled_server, fresh_key) as first,
        client(second_redis_server, fresh_key) as second,
    ):
        statuses = [query(first).status_code, query(second).status_code, query(first).status_code]
        refused = query(second)

    assert statuses == [200, 200, 200]
    assert refused.status_code == 429


def test_without_redis_each_process_limits_on_its_own(caplog: pytest.LogCaptureFixture) -> None:
    async def take_four() -> list[bool]:
        limiter = RedisRateLimiter("redis://127.0.0.1:1/0", "unreachable")
        try:
            return [(await limiter.take("key:k", 3)).allowed for _ in range(4)]
        finally:
            await limiter.close()

    allowed = asyncio.run(take_four())

    assert allowed == [True, True, True, False]
    warnings = [r for r in caplog.records if "Redis is unreachable" in r.getMessage()]
    assert len(warnings) == 1
