"""Real databases and a real HTTP server per backend, shared by the test session."""

from __future__ import annotations

import asyncio
import os
import secrets
import socket
import threading
import time
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import Any, TypeVar

import asyncpg
import uvicorn

from supportdesk.app import create_app
from supportdesk.config import Settings
from supportdesk.db import Database
from supportdesk.db.migrate import upgrade
from supportdesk.dispatch.role import deliver_until
from supportdesk.server import proxy_options
from tests.tenancy import is_confined

T = TypeVar("T")
RUNNING: list[RunningServer] = []
POSTGRES_ADMIN_URL = os.environ.get(
    "SUPPORTDESK_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test"
)
IN_CI = os.environ.get("CI", "").lower() == "true"


async def _postgres(statement: str) -> None:
    connection = await asyncpg.connect(POSTGRES_ADMIN_URL, timeout=5)
    try:
        await connection.execute(statement)
    finally:
        await connection.close()


def create_postgres_database() -> str:
    """A fresh database for this test session; raises OSError when PostgreSQL is away."""
    name = f"supportdesk_test_{secrets.token_hex(4)}"
    asyncio.run(_postgres(f'CREATE DATABASE "{name}"'))
    base = POSTGRES_ADMIN_URL.rsplit("/", 1)[0]
    return f"{base}/{name}"


def drop_postgres_database(url: str) -> None:
    name = url.rsplit("/", 1)[1]
    asyncio.run(_postgres(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@dataclass
class StatementCounter:
    """Counts SQL statements the server runs (all of its engines, and its direct reads),
    and keeps any that reach a tenant table without confining it to a workspace."""

    count: int = 0
    statements: list[str] = field(default_factory=list)
    unconfined: list[str] = field(default_factory=list)

    def attach(self, db: Database) -> None:
        db.watch_statements(self._seen)

    def _seen(self, statement: str) -> None:
        self.count += 1
        self.statements.append(statement)
        if not is_confined(statement):
            self.unconfined.append(statement)

    def take_unconfined(self) -> list[str]:
        taken, self.unconfined = self.unconfined, []
        return taken

    def reset(self) -> None:
        self.count = 0
        self.statements.clear()

    def of_requests(self) -> list[str]:
        """What requests ran, for counting reads: all but the background lastUsedAt writes,
        which run after an answer and so may land after a reset, in the next request's
        count, and but the BEGIN and COMMIT around them (a read runs in no transaction)."""
        return [
            s
            for s in self.statements
            if not s.startswith("UPDATE api_keys SET last_used_at")
            and s.strip().upper() not in ("BEGIN", "BEGIN IMMEDIATE", "COMMIT", "ROLLBACK")
        ]


TEST_POOL_SIZE = 3


class RunningServer:
    """uvicorn serving create_app() in a thread, on its own event loop and a free port."""

    def __init__(self, backend: str, database_url: str, **settings: Any) -> None:
        self.backend = backend
        self.database_url = database_url
        # Tests pose as many clients from 127.0.0.1 with X-Forwarded-For (and as HTTPS with
        # X-Forwarded-Proto), as through a trusted proxy; `serve` trusts nobody by default.
        settings.setdefault("trusted_proxies", "127.0.0.1")
        # A test server needs few connections; PostgreSQL's 100 are shared by every server of
        # this run and of any other run of the suite on the machine (each server may hold up
        # to 3 x its pool size: db/database.py).
        settings.setdefault("db_pool_size", TEST_POOL_SIZE)
        # The shared servers do not deliver webhooks: a polling dispatcher's statements would
        # land in every statement count. Webhook tests start servers of their own with it on.
        settings.setdefault("webhook_dispatch", False)
        self.settings = Settings(database_url=database_url, **settings)
        upgrade(self.settings.database_url)
        self.db = Database(self.settings.database_url, self.settings.db_pool_size)
        self.app = create_app(self.settings, self.db)
        self.statements = StatementCounter()
        self.statements.attach(self.db)
        # As `serve` runs a dispatcher process beside its workers: the same role, in a thread.
        self.dispatcher = (
            DispatcherThread(self.settings, self.statements)
            if self.settings.webhook_dispatch
            else None
        )
        # IPPROTO_TCP named explicitly: asyncio turns on TCP_NODELAY only for sockets whose
        # proto says TCP, and without it every keep-alive answer waits ~40 ms on delayed ACKs.
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._socket.bind(("127.0.0.1", 0))
        self.port = self._socket.getsockname()[1]
        self.base_url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(
            self.app,
            log_level="warning",
            lifespan="on",
            access_log=False,
            **proxy_options(self.settings),
        )
        self._server = uvicorn.Server(config)
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def _serve(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_until_complete(self._server.serve(sockets=[self._socket]))

    def start(self) -> RunningServer:
        RUNNING.append(self)
        self._thread.start()
        deadline = time.monotonic() + 15
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("the test server did not start")
            time.sleep(0.02)
        if self.dispatcher is not None:
            self.dispatcher.start()
        return self

    def call(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run a coroutine on the server's loop (its database pool lives there)."""
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout=30)

    def stop(self) -> None:
        RUNNING.remove(self)
        if self.dispatcher is not None:
            self.dispatcher.stop()
        self._server.should_exit = True
        self._thread.join(timeout=15)


class DispatcherThread:
    """The dispatcher role (dispatch/role.py) in a thread: its own event loop and its own
    database connections, as the process `serve` starts has; its statements are counted
    and checked with the server's."""

    def __init__(self, settings: Settings, statements: StatementCounter) -> None:
        self.settings = settings
        self.db = Database(settings.database_url, TEST_POOL_SIZE)
        statements.attach(self.db)
        self.loop = asyncio.new_event_loop()
        self._stopped = asyncio.Event()
        self._thread = threading.Thread(target=self._deliver, daemon=True)

    def _deliver(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_until_complete(deliver_until(self._stopped, self.settings, self.db))

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self._stopped.set)
        self._thread.join(timeout=30)
