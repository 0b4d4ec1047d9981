"""Servers with other settings than the shared `server`: small or default rate limits on each
limiter backend (in this process, Redis), a generous one for the fuzzer, and throw-away
servers whose database a test may break. They share the session's databases, except the
throw-away ones."""

from __future__ import annotations

import secrets
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import BACKENDS, REDIS_PREFIX, WorkspaceFixture, make_workspace
from tests.servers import RunningServer, create_postgres_database, drop_postgres_database

LIMITERS = ["in-process", "redis"]


def _limiter_settings(request: pytest.FixtureRequest, limiter: str) -> dict[str, Any]:
    if limiter == "redis":
        url = request.getfixturevalue("redis_url")
        return {"redis_url": url, "rate_limit_prefix": f"{REDIS_PREFIX}:{secrets.token_hex(3)}"}
    return {}


def _serve(backend: str, url: str, **settings: Any) -> Iterator[RunningServer]:
    running = RunningServer(backend, url, **settings).start()
    yield running
    running.stop()


@pytest.fixture(scope="session", params=LIMITERS)
def default_limits_server(
    request: pytest.FixtureRequest, sqlite_url: str
) -> Iterator[RunningServer]:
    """Every setting at its default, on each limiter backend."""
    yield from _serve("sqlite", sqlite_url, **_limiter_settings(request, request.param))


@pytest.fixture(scope="session", params=LIMITERS)
def throttled_server(request: pytest.FixtureRequest, sqlite_url: str) -> Iterator[RunningServer]:
    """Rate limits small enough to spend in a test: 3 requests and 2 failed
    authentications a minute."""
    yield from _serve(
        "sqlite",
        sqlite_url,
        rate_limit_per_minute=3,
        failed_auth_per_minute=2,
        **_limiter_settings(request, request.param),
    )


@pytest.fixture(scope="session", params=BACKENDS)
def fuzz_server(request: pytest.FixtureRequest) -> Iterator[RunningServer]:
    """Defaults but the key's rate limit: the fuzzer sends thousands of requests."""
    url = request.getfixturevalue(f"{request.param}_url")
    yield from _serve(request.param, url, rate_limit_per_minute=1_000_000)


SMALL_ANSWER_BYTES = 20_000


@pytest.fixture(scope="session", params=BACKENDS)
def small_answers_server(request: pytest.FixtureRequest) -> Iterator[RunningServer]:
    """Answers of at most SMALL_ANSWER_BYTES."""
    url = request.getfixturevalue(f"{request.param}_url")
    yield from _serve(request.param, url, max_response_bytes=SMALL_ANSWER_BYTES)


@pytest.fixture(scope="session")
def impatient_server(sqlite_url: str) -> Iterator[RunningServer]:
    """A time-out so short that any query that waits on the database runs over it."""
    yield from _serve("sqlite", sqlite_url, request_timeout_seconds=1e-6)


@pytest.fixture(scope="session")
def private_server(sqlite_url: str) -> Iterator[RunningServer]:
    """Introspection turned off."""
    yield from _serve("sqlite", sqlite_url, introspection=False)


@pytest.fixture(params=BACKENDS)
def breakable_server(request: pytest.FixtureRequest) -> Iterator[RunningServer]:
    """A server on a database of its own, which the test may damage."""
    if request.param == "sqlite":
        with tempfile.TemporaryDirectory(prefix="supportdesk-broken-") as folder:
            yield from _serve("sqlite", f"sqlite+aiosqlite:///{Path(folder) / 'broken.db'}")
        return
    request.getfixturevalue("postgresql_url")  # skips (or fails in CI) without PostgreSQL
    url = create_postgres_database()
    try:
        yield from _serve("postgresql", url)
    finally:
        drop_postgres_database(url)


@pytest.fixture(scope="module")
def module_workspace(server: RunningServer) -> WorkspaceFixture:
    """One workspace shared by a module's tests, for tests that need no fresh one (making a
    workspace hashes an admin password with Argon2, about half a second)."""
    return make_workspace(server)
