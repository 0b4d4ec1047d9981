"""Fixtures: every storage test runs on SQLite and on PostgreSQL, through a real server.

Tests are isolated by workspace: each test gets a workspace of its own, and nothing
crosses workspaces, so tests share one server and database per backend.
"""

from __future__ import annotations

import os
import secrets
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

# Before anything imports supportdesk: cheap Argon2id parameters for the whole suite
# (auth/passwords.py); a production hash costs ~0.4 s, and nearly every test logs in.
os.environ.setdefault("SUPPORTDESK_TEST_FAST_PASSWORD_HASHES", "1")

import pytest
import redis

from supportdesk.domain import api_keys, audit, machine_users, members
from supportdesk.domain.workspaces import InitialisedWorkspace, init_workspace
from tests.client import GraphQLClient
from tests.servers import (
    IN_CI,
    RUNNING,
    RunningServer,
    create_postgres_database,
    drop_postgres_database,
)
from tests.tenancy import SUBPROCESS_STATEMENTS, is_confined

BACKENDS = ["sqlite", "postgresql"]
TEST_SECRET_KEY = secrets.token_urlsafe(32)


def _unconfined_statements() -> list[str]:
    """Statements on tenant tables not confined to a workspace, run since the last call by
    the in-thread servers or by any subprocess the tests started (CLI, `serve`)."""
    leaks = [statement for running in RUNNING for statement in running.statements.take_unconfined()]
    leaks += [s for s in SUBPROCESS_STATEMENTS.unread() if not is_confined(s)]
    return leaks


@pytest.fixture(autouse=True)
def every_statement_stays_in_its_workspace() -> Iterator[None]:
    """Fails the test during which (or just before which) a server or a CLI command ran a
    statement on a tenant table without a workspace_id condition (see tests/tenancy.py for
    the few reasoned exceptions)."""
    yield
    leaks = _unconfined_statements()
    assert not leaks, "statements not confined to a workspace:\n" + "\n".join(leaks)


@pytest.fixture(scope="session", autouse=True)
def no_statement_escapes_the_check() -> Iterator[None]:
    """Subprocesses may still write after the last test (a `serve` finishing its work):
    their statements are checked when the session ends."""
    yield
    leaks = _unconfined_statements()
    assert not leaks, "statements not confined to a workspace:\n" + "\n".join(leaks)


@pytest.fixture(scope="session")
def sqlite_url() -> Iterator[str]:
    with tempfile.TemporaryDirectory(prefix="supportdesk-test-") as folder:
        yield f"sqlite+aiosqlite:///{Path(folder) / 'test.db'}"


@pytest.fixture(scope="session")
def postgresql_url() -> Iterator[str]:
    try:
        url = create_postgres_database()
    except (OSError, Exception) as error:
        if IN_CI:
            pytest.fail(f"PostgreSQL is required in CI and was not reachable: {error}")
        pytest.skip(f"PostgreSQL not reachable ({error}); set SUPPORTDESK_TEST_POSTGRES_URL")
    yield url
    drop_postgres_database(url)


REDIS_URL = os.environ.get("SUPPORTDESK_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
# A prefix per test run, so runs sharing a Redis never share a bucket.
REDIS_PREFIX = f"supportdesk-test-{secrets.token_hex(6)}"


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """Redis for state shared by processes; keys under REDIS_PREFIX are removed after."""
    client = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2)
    try:
        client.ping()
    except redis.RedisError as error:
        client.close()
        if IN_CI:
            pytest.fail(f"Redis is required in CI and was not reachable: {error}")
        pytest.skip(f"Redis not reachable at {REDIS_URL} ({error})")
    yield REDIS_URL
    for key in client.scan_iter(f"{REDIS_PREFIX}*"):
        client.delete(key)
    client.close()


@pytest.fixture(scope="session", params=BACKENDS)
def server(request: pytest.FixtureRequest) -> Iterator[RunningServer]:
    """A running server on each backend in turn."""
    url = request.getfixturevalue(f"{request.param}_url")
    # Every test calls from 127.0.0.1: the per-address limit on failed authentications
    # (60 a minute) would turn other tests' 401s into 429s. tests/http tests that limit.
    # A configured server key, as a PostgreSQL deployment needs for webhook secrets (tests
    # of the unconfigured case start a server of their own).
    running = RunningServer(
        request.param, url, failed_auth_per_minute=1_000_000, secret_key=TEST_SECRET_KEY
    ).start()
    yield running
    running.stop()


@dataclass
class WorkspaceFixture:
    server: RunningServer
    made: InitialisedWorkspace

    @property
    def id(self) -> str:
        return self.made.workspace.id

    @property
    def key(self) -> str:
        return self.made.key.secret

    @property
    def admin_email(self) -> str:
        return self.made.admin.email

    @property
    def admin_password(self) -> str:
        return self.made.admin_password

    def client(self, key: str | None = None) -> GraphQLClient:
        return GraphQLClient(self.server.base_url, key or self.key)

    def create_key(self, scopes: list[str], *, legacy: bool = False, name: str = "test key") -> str:
        """A key of the managed machine user, made the way the CLI makes it."""

        async def make() -> str:
            owner = await machine_users.managed_machine_user(self.server.db, self.id)
            created = await api_keys.create_api_key(
                self.server.db,
                audit.CLI_ACTOR,
                self.id,
                machine_user_id=owner.id,
                name=name,
                scopes=scopes,
                legacy=legacy,
            )
            return created.secret

        return self.server.call(make())

    def add_person(self, role: str, email: str | None = None) -> str:
        """Another person of the workspace (e.g. an "agent", who is no org admin); their
        password is ADMIN_PASSWORD. Returns their e-mail."""
        email = email or unique_email(role)
        self.server.call(
            members.create_member(
                self.server.db,
                audit.CLI_ACTOR,
                self.id,
                email=email,
                role=role,
                password=ADMIN_PASSWORD,
            )
        )
        return email


ADMIN_PASSWORD = "correct horse battery"


def unique_email(who: str = "admin") -> str:
    """Each workspace's people have e-mails of their own: logins (and their throttling)
    never meet another test's workspaces in the shared database."""
    return f"{who}-{secrets.token_hex(5)}@example.com"


def make_workspace(
    server: RunningServer, name: str = "Test workspace", admin_email: str | None = None
) -> WorkspaceFixture:
    made = server.call(
        init_workspace(server.db, name, admin_email or unique_email(), ADMIN_PASSWORD)
    )
    return WorkspaceFixture(server, made)


@pytest.fixture
def workspace(server: RunningServer) -> WorkspaceFixture:
    """A fresh workspace with an org admin and a Full-access key."""
    return make_workspace(server)


@pytest.fixture
def other_workspace(server: RunningServer) -> WorkspaceFixture:
    return make_workspace(server, "Other workspace")


@pytest.fixture
def api(workspace: WorkspaceFixture) -> GraphQLClient:
    """A GraphQL client with the workspace's Full-access key."""
    return workspace.client()


@pytest.fixture(params=BACKENDS)
def fresh_database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The URL of an empty database on each backend, as an operator writes it."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'data' / 'supportdesk.db'}"
        return
    url = new_postgres_database()
    yield url
    drop_postgres_database(url)


def new_postgres_database() -> str:
    """A fresh PostgreSQL database of the caller's own (dropped by it); a failure in CI,
    a skip elsewhere, when PostgreSQL is not there."""
    try:
        return create_postgres_database()
    except Exception as error:
        if IN_CI:
            pytest.fail(f"PostgreSQL is required in CI and was not reachable: {error}")
        pytest.skip(f"PostgreSQL not reachable ({error})")
