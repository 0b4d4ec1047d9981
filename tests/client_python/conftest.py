"""The Python client against real servers: the suite's shared `server` (SQLite and
PostgreSQL), and per backend one of our own that delivers webhooks and allows few
requests a minute per key."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from supportdesk.auth.secret_box import new_server_key
from supportdesk_client import Client
from tests.conftest import BACKENDS, WorkspaceFixture
from tests.dispatch.receiver import Receiver
from tests.servers import IN_CI, RunningServer, create_postgres_database, drop_postgres_database

# Requests a minute per key on `strict_server`: few enough to spend in a test.
STRICT_RATE_LIMIT = 4


def _own_database(backend: str, folder: Path) -> str:
    """Its own database: a dispatcher takes the due deliveries of every workspace."""
    if backend == "sqlite":
        return f"sqlite+aiosqlite:///{folder / 'client.db'}"
    try:
        return create_postgres_database()
    except Exception as error:
        if IN_CI:
            pytest.fail(f"PostgreSQL is required in CI and was not reachable: {error}")
        pytest.skip(f"PostgreSQL not reachable ({error})")


@pytest.fixture(scope="package", params=BACKENDS)
def strict_server(request: pytest.FixtureRequest) -> Iterator[RunningServer]:
    """Delivers webhooks (to 127.0.0.1 too) and allows STRICT_RATE_LIMIT requests a
    minute per key."""
    with tempfile.TemporaryDirectory(prefix="supportdesk-client-") as folder:
        url = _own_database(request.param, Path(folder))
        running = RunningServer(
            request.param,
            url,
            rate_limit_per_minute=STRICT_RATE_LIMIT,
            failed_auth_per_minute=1_000_000,
            webhook_dispatch=True,
            webhook_allow_private=True,
            webhook_retry_schedule="0.3,0.6,1",
            secret_key=new_server_key(),
        ).start()
        try:
            yield running
        finally:
            running.stop()
            if request.param != "sqlite":
                drop_postgres_database(url)


@pytest.fixture
def client(workspace: WorkspaceFixture) -> Iterator[Client]:
    """The Python client with the workspace's Full-access key, on the shared server."""
    with Client(workspace.server.base_url, workspace.key) as made:
        yield made


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    listening = Receiver()
    yield listening
    listening.close()


@pytest.fixture(scope="package")
def impatient_server(sqlite_url: str) -> Iterator[RunningServer]:
    """A time-out so short that every request that reads the database answers 503."""
    running = RunningServer("sqlite", sqlite_url, request_timeout_seconds=1e-6).start()
    yield running
    running.stop()
