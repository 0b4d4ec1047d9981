"""GET /metrics on the public port: absent by default, answering with SUPPORTDESK_METRICS=true
(one process, values in memory). What a request, a client that went away, a connection in use
and an operation name past the limits look like in it."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Iterator

import httpx
import pytest

from supportdesk.observability.metrics import MAX_OPERATION_NAME_LENGTH
from tests.conftest import WorkspaceFixture, make_workspace
from tests.http.test_client_disconnect import send_part_and_go
from tests.observability.scrape import Scrape, scrape, wait_for
from tests.rest.client import RestClient
from tests.rest.streams import Stream
from tests.servers import RunningServer

REQUESTS = "supportdesk_http_requests_total"


@pytest.fixture(scope="module")
def metrics_server(sqlite_url: str) -> Iterator[RunningServer]:
    running = RunningServer("sqlite", sqlite_url, metrics=True).start()
    yield running
    running.stop()


@pytest.fixture
def workspace(metrics_server: RunningServer) -> WorkspaceFixture:
    return make_workspace(metrics_server)


def metrics_of(server: RunningServer) -> Scrape:
    return scrape(f"{server.base_url}/metrics")


def test_by_default_the_public_port_has_no_metrics(server: RunningServer) -> None:
    response = httpx.get(f"{server.base_url}/metrics", timeout=10)

    assert response.status_code == 404


def test_with_metrics_on_the_public_port_counts_each_request(
    workspace: WorkspaceFixture, metrics_server: RunningServer
) -> None:
    operation = f"Probe{secrets.token_hex(4)}"

    answer = workspace.client()(f"query {operation} {{ apiInfo }}")

    assert answer.status == 200
    found = wait_for(
        lambda: metrics_of(metrics_server), lambda s: s.total(REQUESTS, operation=operation) > 0
    )
    counted = [
        (labels, n) for labels, n in found.samples(REQUESTS) if labels["operation"] == operation
    ]
    labels = {
        "handler": "graphql",
        "operation": operation,
        "operation_type": "query",
        "status": "200",
    }
    assert counted == [(labels, 1.0)]
    seconds = "supportdesk_http_request_duration_seconds_count"
    assert found.total(seconds, operation=operation) == 1


def test_a_client_that_went_away_is_counted_as_499_and_not_timed(
    workspace: WorkspaceFixture, metrics_server: RunningServer
) -> None:
    before = metrics_of(metrics_server)
    headers = f"Content-Type: application/json\r\nAuthorization: Bearer {workspace.key}\r\n"

    send_part_and_go(metrics_server.port, "/graphql", headers, b"{")

    after = wait_for(
        lambda: metrics_of(metrics_server),
        lambda s: s.total(REQUESTS, status="499") > before.total(REQUESTS, status="499"),
    )
    assert after.total(REQUESTS, status="499") == before.total(REQUESTS, status="499") + 1
    seconds = "supportdesk_http_request_duration_seconds_count"
    timed = {"handler": "graphql", "operation": "unknown"}
    assert after.total(seconds, **timed) == before.total(seconds, **timed)
    errors = [v for labels, v in after.samples(REQUESTS) if labels["status"].startswith("5")]
    assert errors == []


def test_operation_names_past_the_length_limit_share_one_label(
    workspace: WorkspaceFixture, metrics_server: RunningServer
) -> None:
    long_name = "Q" + secrets.token_hex(MAX_OPERATION_NAME_LENGTH)
    before = metrics_of(metrics_server)
    answer = workspace.client()(f"query {long_name} {{ apiInfo }}")

    assert answer.status == 200

    after = wait_for(
        lambda: metrics_of(metrics_server),
        lambda s: s.total(REQUESTS, operation="other") > before.total(REQUESTS, operation="other"),
    )
    assert after.total(REQUESTS, operation="other") == before.total(REQUESTS, operation="other") + 1
    assert not [
        labels
        for labels, _ in after.samples(REQUESTS)
        if labels["operation"][:50] == long_name[:50]
    ]


def test_a_connection_in_use_shows_in_its_pool(metrics_server: RunningServer) -> None:
    in_use = "supportdesk_db_pool_checked_out_connections"
    release = metrics_server.call(_event())

    async def hold() -> None:
        async with metrics_server.db.transaction():
            await release.wait()

    holding = asyncio.run_coroutine_threadsafe(hold(), metrics_server.loop)
    try:
        held = wait_for(
            lambda: metrics_of(metrics_server), lambda s: s.total(in_use, pool="writer") == 1
        )
        assert held.total(in_use, pool="writer") == 1
    finally:
        metrics_server.loop.call_soon_threadsafe(release.set)
        holding.result(timeout=10)
    back = wait_for(
        lambda: metrics_of(metrics_server), lambda s: s.total(in_use, pool="writer") == 0
    )
    assert back.total(in_use, pool="writer") == 0


async def _event() -> asyncio.Event:
    return asyncio.Event()


def test_open_event_streams_and_their_lag_are_counted(
    metrics_server: RunningServer, workspace: WorkspaceFixture
) -> None:
    before = metrics_of(metrics_server)
    with Stream(metrics_server.base_url, workspace.key) as stream:
        opened = metrics_of(metrics_server)
        RestClient(metrics_server.base_url, workspace.key).created()
        stream.take(2)
        written = wait_for(
            lambda: metrics_of(metrics_server),
            lambda now: (
                now.total("supportdesk_event_stream_lag_seconds_count")
                >= before.total("supportdesk_event_stream_lag_seconds_count") + 2
            ),
        )
    opens = "supportdesk_event_streams_open"
    assert opened.total(opens) == before.total(opens) + 1
    assert (
        written.total("supportdesk_event_stream_lag_seconds_sum")
        < before.total("supportdesk_event_stream_lag_seconds_sum") + 2
    )
    closed = wait_for(
        lambda: metrics_of(metrics_server), lambda now: now.total(opens) == before.total(opens)
    )
    assert closed.total(opens) == before.total(opens)
