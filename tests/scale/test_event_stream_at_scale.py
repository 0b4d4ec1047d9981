"""The event stream over four `supportdesk serve` processes on PostgreSQL with Redis
(docs/events-stream.md): an event written through any process reaches the streams held by
all of them within a second; a stream whose process is killed resumes on another with
nothing lost or repeated; and a key's ten open streams are counted across processes."""

from __future__ import annotations

import math
import secrets
import threading
import time
from collections.abc import Iterator
from datetime import datetime

import pytest
from httpx_sse import ServerSentEvent

from supportdesk.live.slots import LEASE_SECONDS
from tests.conftest import REDIS_PREFIX
from tests.processes import ServeProcess, command_env, run_cli
from tests.rest.client import RestClient
from tests.rest.streams import ENDED, Stream, body
from tests.scale.conftest import POOL_SIZE, PROCESSES, Cluster
from tests.servers import create_postgres_database, drop_postgres_database

pytestmark = pytest.mark.processes

CREATED = {"types": "issue.created"}
EVENTS = 200


@pytest.fixture(scope="module")
def group(request: pytest.FixtureRequest, redis_url: str) -> Iterator[Cluster]:
    request.getfixturevalue("postgresql_url")  # skips (or fails in CI) without PostgreSQL
    url = create_postgres_database()
    env = command_env(
        database_url=url,
        redis_url=redis_url,
        rate_limit_prefix=f"{REDIS_PREFIX}:{secrets.token_hex(4)}",
        db_pool_size=str(POOL_SIZE),
        webhook_dispatch="false",
    )
    try:
        run_cli(env, "migrate")
        cluster = Cluster("postgresql", url, env)
        cluster.processes = [cluster.start_process() for _ in range(PROCESSES)]
        try:
            for process in cluster.processes:
                process.wait_ready()
            yield cluster
        finally:
            for process in cluster.processes:
                process.stop()
    finally:
        drop_postgres_database(url)


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def test_every_process_s_events_reach_every_process_s_streams(group: Cluster) -> None:
    _, key = group.workspace()
    writers = [RestClient(p.base_url, key.secret) for p in group.processes]
    streams = [Stream(p.base_url, key.secret, params=CREATED) for p in group.processes]
    try:
        assert [s.status for s in streams] == [200] * PROCESSES
        written = [
            writers[n % PROCESSES].created(subject=f"Fan-out {n}")["id"] for n in range(EVENTS)
        ]
        received = [s.take(EVENTS, timeout=30) for s in streams]
    finally:
        for stream in streams:
            stream.close()

    waits = []
    for stream, messages in zip(streams, received, strict=True):
        assert [body(m)["data"]["issue"]["id"] for m in messages] == written
        arrived = {id_: at for at, id_ in stream.arrivals}
        for message in messages:
            created_at = datetime.fromisoformat(body(message)["createdAt"]).timestamp()
            waits.append(arrived[message.id] - created_at)
    p50, p95 = _percentile(waits, 0.5), _percentile(waits, 0.95)
    print(
        f"\ncreatedAt -> arrival over {EVENTS} events x {PROCESSES} streams: "
        f"p50 {p50 * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms, max {max(waits) * 1000:.0f} ms"
    )
    assert p95 < 1.0


def test_a_stream_whose_process_is_killed_resumes_on_another(group: Cluster) -> None:
    _, key = group.workspace()
    doomed = ServeProcess(group.env).start().wait_ready()
    written: list[str] = []
    stop = threading.Event()

    def write() -> None:
        clients = [RestClient(p.base_url, key.secret) for p in group.processes]
        while not stop.is_set() and len(written) < 60:
            written.append(clients[len(written) % PROCESSES].created(subject="Steady")["id"])
            time.sleep(0.05)

    writer = threading.Thread(target=write, daemon=True)
    try:
        first = Stream(doomed.base_url, key.secret, params=CREATED)
        assert first.status == 200
        writer.start()
        before = first.take(10, timeout=10)
        doomed.kill()
        before += _until_ended(first, 5)
        time.sleep(0.5)  # away while events are written
        resumed_after = before[-1].id
        with Stream(
            group.processes[1].base_url,
            key.secret,
            params=CREATED,
            headers={"Last-Event-ID": resumed_after},
        ) as second:
            writer.join(timeout=30)
            after = second.take(len(written) - len(before), timeout=10)
            assert second.nothing_within(0.5)
    finally:
        stop.set()
        if writer.ident is not None:  # started: a failure before it shows as itself
            writer.join(timeout=30)
        doomed.stop()

    ids = [body(m)["data"]["issue"]["id"] for m in before + after]
    assert ids == written  # none lost, none twice, in order
    sequences = [int(m.id) for m in before + after]
    assert sequences == sorted(set(sequences))


def _until_ended(stream: Stream, seconds: float) -> list[ServerSentEvent]:
    """The rest of what the stream received, once it ended."""
    taken = []
    deadline = time.monotonic() + seconds
    while (item := stream.items.get(timeout=max(0.01, deadline - time.monotonic()))) != ENDED:
        taken.append(item)
    return taken


def test_a_keys_ten_streams_are_counted_across_processes(group: Cluster) -> None:
    workspace_id, _ = group.workspace()
    key = group.create_key(workspace_id, ["issues:read"])
    first, second = group.processes[0].base_url, group.processes[1].base_url
    streams = [Stream(first if n % 2 else second, key.secret) for n in range(10)]
    try:
        assert [s.status for s in streams] == [200] * 10
        for base_url in (first, second, group.processes[2].base_url):
            eleventh = Stream(base_url, key.secret)
            assert eleventh.status == 429
            assert eleventh.body["error"]["code"] == "LIMIT_REACHED"
        # A stream closed on one process frees a place on another.
        streams.pop().close()
        _opens_within(5, second, key.secret)
    finally:
        for stream in streams:
            stream.close()


def test_a_killed_process_s_streams_stop_counting_within_the_lease(group: Cluster) -> None:
    workspace_id, _ = group.workspace()
    key = group.create_key(workspace_id, ["issues:read"])
    doomed = ServeProcess(group.env).start().wait_ready()
    held: list[Stream] = []
    try:
        held += [Stream(doomed.base_url, key.secret) for _ in range(10)]
        assert [s.status for s in held] == [200] * 10
        doomed.kill()
        killed_at = time.monotonic()
        assert Stream(group.processes[0].base_url, key.secret).status == 429
        _opens_within(LEASE_SECONDS + 2, group.processes[0].base_url, key.secret)
        print(f"\na killed process's streams forgotten after {time.monotonic() - killed_at:.1f} s")
    finally:
        for stream in held:
            stream.close()
        doomed.stop()


def _opens_within(seconds: float, base_url: str, secret: str) -> None:
    deadline = time.monotonic() + seconds
    while (stream := Stream(base_url, secret)).status != 200:
        assert time.monotonic() < deadline, f"refused for {seconds} s: {stream.body}"
        time.sleep(0.2)
    stream.close()
