"""Several `supportdesk serve` processes over one database and one Redis, as a deployment
that outgrew one process runs (docs/deploy.md). The group is started once per backend for
the package's modules that use it (each test works in workspaces of its own, and a test that
kills a process starts another): PostgreSQL (a fresh database), and SQLite (one file,
several writers)."""

from __future__ import annotations

import asyncio
import secrets
import tempfile
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import pytest

from supportdesk.config import normalise_database_url
from supportdesk.db import Database
from supportdesk.domain import api_keys, audit, machine_users
from supportdesk.domain.workspaces import init_workspace
from tests.client import GraphQLClient
from tests.conftest import ADMIN_PASSWORD, BACKENDS, REDIS_PREFIX, unique_email
from tests.processes import ServeProcess, command_env, run_cli
from tests.servers import create_postgres_database, drop_postgres_database

T = TypeVar("T")
PROCESSES = 4
# Small, so that a test spends it quickly; the default is 600 (tests/scale check it).
RATE_LIMIT = 50
# Four processes of at most 3 x 2 connections each (db/database.py): 24, so that two runs of
# the suite side by side stay inside PostgreSQL's 100 with their other servers.
POOL_SIZE = 2

# Counts the writes of api_keys.last_used_at that land, whoever makes them.
LAST_USED_TRIGGER = {
    "postgresql": [
        "CREATE TABLE test_last_used_writes (key_id text NOT NULL)",
        """CREATE FUNCTION test_count_last_used() RETURNS trigger AS $$
           BEGIN INSERT INTO test_last_used_writes VALUES (NEW.id); RETURN NEW; END
           $$ LANGUAGE plpgsql""",
        """CREATE TRIGGER test_last_used AFTER UPDATE OF last_used_at ON api_keys
           FOR EACH ROW EXECUTE FUNCTION test_count_last_used()""",
    ],
    "sqlite": [
        "CREATE TABLE test_last_used_writes (key_id text NOT NULL)",
        """CREATE TRIGGER test_last_used AFTER UPDATE OF last_used_at ON api_keys
           BEGIN INSERT INTO test_last_used_writes VALUES (NEW.id); END""",
    ],
}


@dataclass
class Key:
    id: str
    secret: str


@dataclass
class Cluster:
    backend: str
    database_url: str
    env: dict[str, str]
    processes: list[ServeProcess] = field(default_factory=list)

    def call(self, work: Callable[[Database], Awaitable[T]]) -> T:
        """Run `work` against the group's database from the test (a pool of its own)."""

        async def main() -> T:
            db = Database(normalise_database_url(self.database_url), pool_size=2)
            try:
                return await work(db)
            finally:
                await db.dispose()

        return asyncio.run(main())

    def sql(self, statement: str) -> list[tuple[object, ...]]:
        from sqlalchemy import text

        async def run(db: Database) -> list[tuple[object, ...]]:
            async with db.transaction() as connection:
                result = await connection.execute(text(statement))
                return [tuple(row) for row in result]

        return self.call(run)

    def workspace(self) -> tuple[str, Key]:
        """A fresh workspace and its Full-access key."""
        made = self.call(lambda db: init_workspace(db, "Scale", unique_email(), ADMIN_PASSWORD))
        return made.workspace.id, Key(made.key.api_key.id, made.key.secret)

    def create_key(self, workspace_id: str, scopes: list[str]) -> Key:
        async def make(db: Database) -> Key:
            owner = await machine_users.managed_machine_user(db, workspace_id)
            created = await api_keys.create_api_key(
                db, audit.CLI_ACTOR, workspace_id, machine_user_id=owner.id, name="scale",
                scopes=scopes,
            )  # fmt: skip
            return Key(created.api_key.id, created.secret)

        return self.call(make)

    def clients(self, key: Key | str) -> list[GraphQLClient]:
        """One client per process, in process order."""
        secret = key.secret if isinstance(key, Key) else key
        return [GraphQLClient(p.base_url, secret) for p in self.processes]

    def start_process(self) -> ServeProcess:
        return ServeProcess(self.env).start()


def _database(request: pytest.FixtureRequest, backend: str) -> Iterator[str]:
    if backend == "sqlite":
        with tempfile.TemporaryDirectory(prefix="supportdesk-scale-") as folder:
            yield f"sqlite:///{Path(folder) / 'scale.db'}"
        return
    request.getfixturevalue("postgresql_url")  # skips (or fails in CI) without PostgreSQL
    url = create_postgres_database()
    try:
        yield url
    finally:
        drop_postgres_database(url)


@pytest.fixture(scope="package", params=BACKENDS)
def cluster(request: pytest.FixtureRequest, redis_url: str) -> Iterator[Cluster]:
    """PROCESSES `supportdesk serve` processes sharing a fresh database and Redis (with a
    prefix of their own), migrated by `supportdesk migrate` first, as docs/deploy.md says."""
    for database_url in _database(request, request.param):
        env = command_env(
            database_url=database_url,
            redis_url=redis_url,
            rate_limit_prefix=f"{REDIS_PREFIX}:{secrets.token_hex(4)}",
            rate_limit_per_minute=str(RATE_LIMIT),
            failed_auth_per_minute="100000",
            db_pool_size=str(POOL_SIZE),
            # Webhooks to a receiver on this machine, sealed under a key every process
            # shares, retried soon, and a short lease, so that an attempt a killed process
            # left is sent again within the test (the default lease is 60 s).
            secret_key=secrets.token_urlsafe(32),
            webhook_allow_private="true",
            webhook_retry_schedule="0.5,1,2,4",
            webhook_lease_seconds="3",
        )
        run_cli(env, "migrate")
        group = Cluster(request.param, database_url, env)
        for statement in LAST_USED_TRIGGER[request.param]:
            group.sql(statement)
        group.processes = [group.start_process() for _ in range(PROCESSES)]
        try:
            with ThreadPoolExecutor(PROCESSES) as pool:
                list(pool.map(ServeProcess.wait_ready, group.processes))
            yield group
        finally:
            for process in group.processes:
                process.stop()
