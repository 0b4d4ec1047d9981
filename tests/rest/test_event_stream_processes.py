"""The event stream across `supportdesk serve` processes: an event written through one
process reaches a stream held by another within a second (PostgreSQL's NOTIFY, or Redis
when configured), and the Python client's `iter_events` resumes across a restart."""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from supportdesk.domain.events.tail import last_sequences
from supportdesk_client import Client, StreamReset
from supportdesk_client.webhooks import WebhookEvent
from tests.conftest import REDIS_PREFIX
from tests.processes import ServeProcess, command_env, run_cli
from tests.rest.client import RestClient
from tests.rest.streams import Stream, body
from tests.scale.conftest import Cluster, Key
from tests.servers import create_postgres_database, drop_postgres_database

pytestmark = pytest.mark.processes


@dataclass
class Pair:
    """Two `serve` processes over one database."""

    group: Cluster
    first: ServeProcess
    second: ServeProcess


@pytest.fixture(scope="module", params=["postgres-notify", "redis"])
def pair(request: pytest.FixtureRequest) -> Iterator[Pair]:
    request.getfixturevalue("postgresql_url")  # skips (or fails in CI) without PostgreSQL
    settings: dict[str, str] = {}
    if request.param == "redis":
        settings["redis_url"] = request.getfixturevalue("redis_url")
        settings["rate_limit_prefix"] = f"{REDIS_PREFIX}:{secrets.token_hex(4)}"
    url = create_postgres_database()
    env = command_env(database_url=url, db_pool_size="2", **settings)
    try:
        run_cli(env, "migrate")
        group = Cluster("postgresql", url, env)
        processes = [group.start_process() for _ in range(2)]
        try:
            for process in processes:
                process.wait_ready()
            yield Pair(group, *processes)
        finally:
            for process in processes:
                process.stop()
    finally:
        drop_postgres_database(url)


def test_an_event_written_through_one_process_reaches_a_stream_of_another(pair: Pair) -> None:
    _, key = pair.group.workspace()
    writer = RestClient(pair.first.base_url, key.secret)
    with Stream(pair.second.base_url, key.secret) as stream:
        assert stream.status == 200
        waits = []
        for round in range(5):
            started = time.monotonic()
            issue = writer.created(subject=f"Across processes {round}")
            got = stream.next(timeout=5)
            if got.event == "contact.created":
                got = stream.next(timeout=5)
            waits.append(time.monotonic() - started)
            assert body(got)["data"]["issue"]["id"] == issue["id"]
    assert max(waits) < 1.0, waits


def test_iter_events_resumes_across_a_server_restart(tmp_path: Path) -> None:
    env = command_env(database_url=f"sqlite:///{tmp_path / 'restart.db'}", webhook_dispatch="false")
    run_cli(env, "migrate")
    group = Cluster("sqlite", f"sqlite:///{tmp_path / 'restart.db'}", env)
    workspace_id, key = group.workspace()
    after = group.call(lambda db: last_sequences(db, [workspace_id]))[workspace_id]
    server = ServeProcess(env).start().wait_ready()
    received: list[WebhookEvent | StreamReset] = []
    reader = threading.Thread(
        target=_read_events, args=(server.base_url, key, after, received), daemon=True
    )
    try:
        reader.start()
        rest = RestClient(server.base_url, key.secret)
        rest.created(subject="Before the restart")
        _wait_for(lambda: len(received) >= 2)

        stopped = time.monotonic()
        server.stop(timeout=10)
        assert time.monotonic() - stopped < 5  # the open stream did not hold the shutdown up
        # Written while no server runs: the client resumes after what it saw.
        group.call(_create_issue_directly(key))
        restarted = ServeProcess(env)
        restarted.port, restarted.base_url = server.port, server.base_url
        server = restarted.start().wait_ready()
        RestClient(server.base_url, key.secret).created(subject="After the restart")
        _wait_for(lambda: len(received) >= 4)
    finally:
        server.stop()

    sequences = [item.sequence for item in received if isinstance(item, WebhookEvent)]
    assert sequences == list(range(sequences[0], sequences[0] + 4))
    subjects = [
        item.data["issue"]["subject"]
        for item in received
        if isinstance(item, WebhookEvent) and item.type == "issue.created"
    ]
    assert subjects == ["Before the restart", "While stopped", "After the restart"]


def _read_events(base_url: str, key: Key, after: int, received: list[Any]) -> None:
    """Reads the four events the test expects, then ends: a reader left behind would
    reconnect to whatever server takes the port next."""
    with Client(base_url, key.secret) as client:
        for item in client.iter_events(after=after, max_reconnect_wait=0.5):
            received.append(item)
            if len(received) == 4:
                return


def _create_issue_directly(key: Key) -> Any:
    from supportdesk.domain import issues
    from supportdesk.domain.audit import CLI_ACTOR
    from supportdesk.domain.issues import NewIssue

    async def create(db: Any) -> None:
        async with db.read() as connection:
            workspace_id = await _workspace_of(connection, key.id)
        new = NewIssue(
            subject="While stopped",
            body="Nobody serves.",
            requester_email="moss@example.com",
            requester_name=None,
            priority=None,
            idempotency_key=None,
        )
        await issues.create_issue(db, CLI_ACTOR, workspace_id, new)

    return create


async def _workspace_of(connection: Any, key_id: str) -> str:
    from sqlalchemy import select

    from supportdesk.db.tables import api_keys

    return str(
        await connection.scalar(select(api_keys.c.workspace_id).where(api_keys.c.id == key_id))
    )


def _wait_for(condition: Any, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "not within the time-out"
        time.sleep(0.05)
