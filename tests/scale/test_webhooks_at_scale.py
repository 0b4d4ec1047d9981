"""Events and webhooks across several `serve` processes sharing one database and Redis
(CONTRACT section 11): a gap-free log in sequence order under concurrent writes, each event
delivered exactly once when nothing crashes, and none lost when a process is killed."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.client import GraphQLClient
from tests.dispatch.receiver import Receiver
from tests.graphql.webhooks.helpers import CREATE as CREATE_ENDPOINT
from tests.scale.conftest import RATE_LIMIT, Cluster
from tests.scale.test_shared_guarantees import _create_issues, load_and_kill

pytestmark = pytest.mark.processes


EVENTS = """
query($after: String) {
  events(first: 100, after: $after) {
    edges { node { id type sequence data } }
    pageInfo { hasNextPage endCursor }
  }
}
"""
# Enough time for the last attempts to leave after their leases run out (the cluster's
# lease is short: tests/scale/conftest.py).
DELIVERED_WITHIN = 60


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    found = Receiver()
    yield found
    found.close()


def every_event(api: GraphQLClient) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    after = None
    while True:
        page = api.ok(EVENTS, {"after": after})["events"]
        found += [edge["node"] for edge in page["edges"]]
        if not page["pageInfo"]["hasNextPage"]:
            return found
        after = page["pageInfo"]["endCursor"]


def subscribe(api: GraphQLClient, url: str, types: list[str]) -> str:
    payload = api.ok(CREATE_ENDPOINT, {"input": {"url": url, "eventTypes": types}})
    made = payload["createWebhookEndpoint"]
    assert made["error"] is None, made
    endpoint_id: str = made["webhookEndpoint"]["id"]
    return endpoint_id


def wait_until_delivered(cluster: Cluster, workspace_id: str) -> None:
    """Until no delivery of the workspace is pending (each has succeeded or failed)."""
    deadline = time.monotonic() + DELIVERED_WITHIN
    while True:
        [(pending,)] = cluster.sql(
            "SELECT count(*) FROM webhook_deliveries"
            f" WHERE workspace_id = '{workspace_id}' AND status <> 'succeeded'"
        )
        if pending == 0:
            return
        assert time.monotonic() < deadline, f"{pending} deliveries still not succeeded"
        time.sleep(0.1)


def test_concurrent_writes_over_every_process_give_a_gap_free_log_each_event_sent_once(
    cluster: Cluster, receiver: Receiver
) -> None:
    count = 200
    workspace_id, admin = cluster.workspace()
    clients = cluster.clients(admin)
    subscribe(clients[0], receiver.url, ["issue.created"])
    keys = [
        cluster.create_key(workspace_id, ["issues:create"]).secret
        for _ in range(-(-count // (RATE_LIMIT // 2)))
    ]

    payloads = asyncio.run(_create_issues(cluster, keys, count))

    assert [p["error"] for p in payloads] == [None] * count
    events = every_event(clients[1])
    assert [e["sequence"] for e in events] == list(range(1, len(events) + 1))
    created = [e for e in events if e["type"] == "issue.created"]
    assert {e["data"]["issue"]["id"] for e in created} == {p["issue"]["id"] for p in payloads}
    receiver.wait_for(count, timeout=DELIVERED_WITHIN)
    wait_until_delivered(cluster, workspace_id)
    received = [r.headers["webhook-id"] for r in receiver.received]
    assert sorted(received) == sorted(e["id"] for e in created)  # each exactly once


def test_a_killed_process_loses_no_event_and_records_none_for_what_was_not_committed(
    cluster: Cluster, receiver: Receiver
) -> None:
    """SIGKILL one process under a createIssue/replyToIssue load with an endpoint taking
    every issue and message event: after a restart every answered mutation has its event
    in the log and at the receiver (at least once), and every event's object exists."""
    requests_each = RATE_LIMIT - 2
    workspace_id, admin = cluster.workspace()
    subscribe(cluster.clients(admin)[0], receiver.url, ["issue.created", "message.created"])
    victim = 0
    loaders, _ = load_and_kill(cluster, workspace_id, victim, requests_each, "hooked")
    cluster.processes[victim].stop()
    cluster.processes[victim] = cluster.start_process().wait_ready()

    events = every_event(cluster.clients(admin)[1])
    issue_events = {
        e["data"]["issue"]["id"]: e["id"] for e in events if e["type"] == "issue.created"
    }
    message_events = {
        e["data"]["message"]["id"]: e["id"] for e in events if e["type"] == "message.created"
    }
    answered_issues = {i for loader in loaders for i in loader.issues}
    answered_messages = {m for loader in loaders for m in loader.messages}
    assert answered_issues <= set(issue_events)
    assert answered_messages <= set(message_events)
    stored_issues = {
        row[0]
        for row in cluster.sql(f"SELECT id FROM issues WHERE workspace_id = '{workspace_id}'")
    }
    stored_messages = {
        row[0]
        for row in cluster.sql(f"SELECT id FROM messages WHERE workspace_id = '{workspace_id}'")
    }
    assert set(issue_events) <= stored_issues, "an event for an issue that was not committed"
    assert set(message_events) <= stored_messages, "an event for a message never committed"
    assert [e["sequence"] for e in events] == list(range(1, len(events) + 1))

    wait_until_delivered(cluster, workspace_id)
    received = {r.headers["webhook-id"] for r in receiver.received}
    assert set(issue_events.values()) | set(message_events.values()) <= received
