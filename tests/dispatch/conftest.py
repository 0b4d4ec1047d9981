"""Servers that deliver webhooks, each on a database of its own: their dispatchers take due
deliveries of every workspace, so they must not share a database with the suite's servers
(nor with each other, where a test drives dispatchers by hand). They live as long as this
package's tests, not the session: their connections count against PostgreSQL's 100, which
two runs of the suite side by side share."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from supportdesk.auth.secret_box import new_server_key
from tests.conftest import BACKENDS
from tests.dispatch.receiver import Receiver
from tests.servers import IN_CI, RunningServer, create_postgres_database, drop_postgres_database

SERVER_KEY = new_server_key()
# Fast retries and a short time-out, so a test sees a delivery's whole life in seconds.
FAST = {
    "webhook_allow_private": True,
    "webhook_retry_schedule": "0.3,0.6,1",
    "webhook_timeout_seconds": 1,
    "secret_key": SERVER_KEY,
    "failed_auth_per_minute": 1_000_000,
}


def _own_database(backend: str, folder: Path) -> str:
    if backend == "sqlite":
        return f"sqlite+aiosqlite:///{folder / 'dispatch.db'}"
    try:
        return create_postgres_database()
    except Exception as error:
        if IN_CI:
            pytest.fail(f"PostgreSQL is required in CI and was not reachable: {error}")
        pytest.skip(f"PostgreSQL not reachable ({error})")


def _server(backend: str, **settings: object) -> Iterator[RunningServer]:
    with tempfile.TemporaryDirectory(prefix="supportdesk-dispatch-") as folder:
        url = _own_database(backend, Path(folder))
        running = RunningServer(backend, url, **{**FAST, **settings}).start()
        try:
            yield running
        finally:
            running.stop()
            if backend != "sqlite":
                drop_postgres_database(url)


@pytest.fixture(scope="package", params=BACKENDS)
def delivering(request: pytest.FixtureRequest) -> Iterator[RunningServer]:
    """A server whose dispatcher delivers what its mutations queue."""
    yield from _server(request.param, webhook_dispatch=True)


@pytest.fixture(scope="package", params=BACKENDS)
def quiet(request: pytest.FixtureRequest) -> Iterator[RunningServer]:
    """A server that queues deliveries and sends none: tests start dispatchers by hand."""
    yield from _server(request.param, webhook_dispatch=False)


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    listening = Receiver()
    yield listening
    listening.close()
