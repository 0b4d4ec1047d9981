"""Mutations reach a real receiver, signed, retried, never redirected (CONTRACT §11), through
a server whose own dispatcher delivers, on each backend."""

from __future__ import annotations

import logging
import socket
import statistics
import time
from collections import Counter
from datetime import datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy import update as sql_update
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from supportdesk import __version__
from supportdesk.db.tables import webhook_endpoints
from supportdesk.domain.clock import now
from tests import factories
from tests.client import GraphQLClient
from tests.conftest import make_workspace, unique_email
from tests.dispatch.helpers import (
    REDELIVER,
    REPLAY,
    ROTATE,
    create_endpoint,
    deliveries,
    endpoint,
    eventually,
    new_contact,
)
from tests.dispatch.raw_receiver import Raw, RawReceiver
from tests.dispatch.receiver import Answer, Receiver
from tests.graphql.events.helpers import all_events
from tests.graphql.issues.helpers import new_issue, reply, update
from tests.servers import RunningServer

SEND_TEST = """
mutation($id: ID!) { sendTestWebhook(id: $id) { delivery { id } error { code message } } }
"""


def finished(api: GraphQLClient, endpoint_id: str, count: int = 1) -> list[dict[str, Any]]:
    """The endpoint's deliveries once `count` of them are no longer pending."""

    def check() -> list[dict[str, Any]] | None:
        found = deliveries(api, endpoint_id)
        done = [d for d in found if d["status"] != "pending"]
        return found if len(done) >= count else None

    return eventually(check, what=f"{count} deliveries finished")


def test_each_mutation_reaches_the_receiver_signed(
    delivering: RunningServer, receiver: Receiver
) -> None:
    api = make_workspace(delivering).client()
    types = ["contact.created", "issue.created", "message.created", "issue.updated"]
    types.append("api_key.revoked")
    endpoint_id, secret = create_endpoint(api, receiver.url, types)

    issue = new_issue(api, requesterEmail=unique_email("requester"))
    reply(api, issue["id"], "We are on it.")
    update(api, issue["id"], priority="high")
    owner = factories.machine_user(api, "Zapier")
    key = factories.api_key(api, owner["id"], ["issues:read"])
    api.ok(factories.REVOKE_API_KEY, {"id": key["apiKey"]["id"]})

    recorded = all_events(api, types=types)
    received = receiver.wait_for(len(recorded))
    assert sorted(r.headers["webhook-id"] for r in received) == sorted(e["id"] for e in recorded)
    assert {r.event["type"] for r in received} == set(types)
    for request in received:
        assert Webhook(secret).verify(request.body, request.headers) == request.event
        assert request.headers["webhook-id"] == request.event["id"]
        assert request.headers["content-type"] == "application/json"
        assert request.headers["user-agent"] == f"supportdesk-webhooks/{__version__}"
        assert request.path == "/hook?token=abc"
        altered = request.body[:-2] + b" " + request.body[-1:]
        with pytest.raises(WebhookVerificationError):
            Webhook(secret).verify(altered, request.headers)
    done = finished(api, endpoint_id, len(recorded))
    assert {(d["status"], d["attempts"], d["lastResponseStatus"]) for d in done} == {
        ("succeeded", 1, 200)
    }
    assert all(d["lastError"] is None and d["durationMs"] is not None for d in done)


def test_the_first_attempt_leaves_within_a_second_of_the_commit(
    delivering: RunningServer, receiver: Receiver
) -> None:
    api = make_workspace(delivering).client()
    create_endpoint(api, receiver.url, ["contact.created"])
    latencies = []

    for n in range(20):
        before = receiver.received[-1].at if receiver.received else None
        started = time.monotonic()
        new_contact(api, n)
        arrived = receiver.wait_for(n + 1)[-1]
        assert arrived.at != before
        # The commit happens between `started` and the answer: this bounds it from above.
        latencies.append(arrived.at - started)

    # The promise is a 95th percentile: the 19th of 20, so one stall of a busy test
    # machine is allowed and two are not.
    p95 = sorted(latencies)[18]
    print(
        f"\n{delivering.backend}: mutation start → first attempt:"
        f" median {statistics.median(latencies) * 1000:.1f} ms,"
        f" p95 {p95 * 1000:.1f} ms, max {max(latencies) * 1000:.1f} ms"
    )
    assert p95 < 1.0
    assert statistics.median(latencies) < 0.5


def test_failures_are_retried_on_schedule_with_the_same_event_id(
    delivering: RunningServer, receiver: Receiver
) -> None:
    api = make_workspace(delivering).client()
    endpoint_id, secret = create_endpoint(api, receiver.url, ["contact.created"])
    receiver.answer(Answer(500), Answer(500), Answer(200))

    new_contact(api)

    first, second, third = receiver.wait_for(3)
    assert len({r.headers["webhook-id"] for r in (first, second, third)}) == 1
    for request in (first, second, third):
        Webhook(secret).verify(request.body, request.headers)
    # The schedule is 0.3 s then 0.6 s, each less at most 10% of jitter.
    assert second.at - first.at >= 0.27
    assert third.at - second.at >= 0.54
    [delivery] = finished(api, endpoint_id)
    assert delivery["status"] == "succeeded"
    assert delivery["attempts"] == 3
    assert delivery["lastResponseStatus"] == 200
    assert delivery["nextAttemptAt"] is None


def test_a_success_ends_the_endpoints_failure_streak_and_is_written_once_a_minute(
    delivering: RunningServer, receiver: Receiver
) -> None:
    workspace = make_workspace(delivering)
    api = workspace.client()
    endpoint_id, _ = create_endpoint(api, receiver.url, ["contact.created"])
    delivering.call(_failing_since(delivering, workspace.id, endpoint_id, timedelta(hours=1)))
    assert _health(delivering, workspace.id, endpoint_id)[0] is not None

    new_contact(api)
    finished(api, endpoint_id)
    failing_since, first_success = _health(delivering, workspace.id, endpoint_id)
    new_contact(api)
    finished(api, endpoint_id, 2)

    assert failing_since is None and first_success is not None
    # A second success within the minute writes nothing.
    assert _health(delivering, workspace.id, endpoint_id) == (None, first_success)


async def _failing_since(
    running: RunningServer, workspace_id: str, endpoint_id: str, ago: timedelta
) -> None:
    async with running.db.transaction() as connection:
        await connection.execute(
            sql_update(webhook_endpoints)
            .where(
                webhook_endpoints.c.workspace_id == workspace_id,
                webhook_endpoints.c.id == endpoint_id,
            )
            .values(failing_since=now() - ago)
        )


def _health(
    running: RunningServer, workspace_id: str, endpoint_id: str
) -> tuple[datetime | None, datetime | None]:
    async def read() -> tuple[datetime | None, datetime | None]:
        async with running.db.read() as connection:
            row = (
                await connection.execute(
                    select(
                        webhook_endpoints.c.failing_since, webhook_endpoints.c.last_success_at
                    ).where(
                        webhook_endpoints.c.workspace_id == workspace_id,
                        webhook_endpoints.c.id == endpoint_id,
                    )
                )
            ).one()
            return row[0], row[1]

    return running.call(read())


def test_a_delivery_fails_for_good_after_the_last_retry(
    delivering: RunningServer, receiver: Receiver
) -> None:
    api = make_workspace(delivering).client()
    endpoint_id, _ = create_endpoint(api, receiver.url, ["contact.created"])
    receiver.answer(*[Answer(503)] * 4)

    new_contact(api)

    [delivery] = finished(api, endpoint_id)
    assert delivery["status"] == "failed"
    assert delivery["attempts"] == 4  # the first and the schedule's three retries
    assert (delivery["lastResponseStatus"], delivery["lastError"]) == (503, "HTTP 503")
    assert endpoint(api, endpoint_id)["enabled"] is True  # days of failure, not seconds


def test_410_disables_the_endpoint_as_gone(delivering: RunningServer, receiver: Receiver) -> None:
    api = make_workspace(delivering).client()
    endpoint_id, _ = create_endpoint(api, receiver.url, ["contact.created"])
    receiver.answer(Answer(410))

    new_contact(api)

    [delivery] = finished(api, endpoint_id)
    assert (delivery["status"], delivery["attempts"], delivery["lastResponseStatus"]) == (
        "failed",
        1,
        410,
    )
    found = endpoint(api, endpoint_id)
    assert (found["enabled"], found["status"], found["disabledReason"]) == (
        False,
        "disabled",
        "gone",
    )
    [disabled] = all_events(api, types=["webhook_endpoint.updated"])
    assert disabled["actor"]["type"] == "system"
    assert disabled["data"]["changes"]["disabledReason"] == {"from": None, "to": "gone"}
    assert len(receiver.received) == 1


def test_a_receiver_slower_than_the_time_out_counts_as_a_failure(
    delivering: RunningServer, receiver: Receiver
) -> None:
    api = make_workspace(delivering).client()
    endpoint_id, _ = create_endpoint(api, receiver.url, ["contact.created"])
    receiver.answer(Answer(200, delay=3))

    new_contact(api)

    slow, again = receiver.wait_for(2)
    # Cut at the 1 s time-out, then 0.3 s of schedule: long before the slow answer came.
    assert 1.0 + 0.27 <= again.at - slow.at < 2.5
    [delivery] = finished(api, endpoint_id)
    assert (delivery["status"], delivery["attempts"]) == ("succeeded", 2)


def test_a_refused_connection_is_told_in_fixed_words_without_address_or_port(
    delivering: RunningServer,
) -> None:
    with socket.socket() as unused:  # a port nobody listens on
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    api = make_workspace(delivering).client()
    endpoint_id, _ = create_endpoint(api, f"http://127.0.0.1:{port}/hook", ["contact.created"])

    new_contact(api)

    [delivery] = finished(api, endpoint_id)
    assert (delivery["status"], delivery["attempts"]) == ("failed", 4)
    assert delivery["lastResponseStatus"] is None
    assert delivery["lastError"] == "connection refused"
    assert "127.0.0.1" not in delivery["lastError"] and str(port) not in delivery["lastError"]


SWITCHING_PROTOCOLS = (
    b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"
)


def test_a_101_answer_is_a_failed_attempt_and_the_dispatcher_goes_on(
    delivering: RunningServer, caplog: pytest.LogCaptureFixture
) -> None:
    raw = RawReceiver()  # writes the bytes given, whatever the client expects
    try:
        api = make_workspace(delivering).client()
        endpoint_id, _ = create_endpoint(api, raw.url(), ["contact.created"])
        raw.script(*[Raw(SWITCHING_PROTOCOLS, close=True)] * 4)

        new_contact(api, 1)
        [switched] = finished(api, endpoint_id)
        new_contact(api, 2)
        newest, _ = finished(api, endpoint_id, 2)

        assert (switched["status"], switched["attempts"]) == ("failed", 4)  # on schedule
        assert switched["lastResponseStatus"] == 101 or "101" in switched["lastError"]
        assert (newest["status"], newest["attempts"]) == ("succeeded", 1)
        assert len(raw.wait_for(5)) == 5
        troubles = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
        assert troubles == [], [r.getMessage() for r in troubles]
    finally:
        raw.close()


def test_a_redirect_is_a_failure_and_is_not_followed(
    delivering: RunningServer, receiver: Receiver
) -> None:
    target = Receiver()
    try:
        api = make_workspace(delivering).client()
        endpoint_id, _ = create_endpoint(api, receiver.url, ["contact.created"])
        receiver.answer(*[Answer(302, {"location": target.url})] * 4)

        new_contact(api)

        [delivery] = finished(api, endpoint_id)
        assert (delivery["status"], delivery["attempts"]) == ("failed", 4)
        assert delivery["lastResponseStatus"] == 302
        assert "redirects are not followed" in delivery["lastError"]
        assert target.received == []
    finally:
        target.close()


def test_during_a_rotation_deliveries_carry_both_signatures(
    delivering: RunningServer, receiver: Receiver
) -> None:
    api = make_workspace(delivering).client()
    endpoint_id, old = create_endpoint(api, receiver.url, ["contact.created"])
    rotated = api.ok(ROTATE, {"input": {"id": endpoint_id}})["rotateWebhookSecret"]
    new = rotated["secret"]

    new_contact(api, 1)

    [during] = receiver.wait_for(1)
    assert len(during.headers["webhook-signature"].split(" ")) == 2
    Webhook(new).verify(during.body, during.headers)
    Webhook(old).verify(during.body, during.headers)

    rotated = api.ok(ROTATE, {"input": {"id": endpoint_id, "keepPreviousForSeconds": 0}})
    newest = rotated["rotateWebhookSecret"]["secret"]
    new_contact(api, 2)

    after = receiver.wait_for(2)[1]
    assert len(after.headers["webhook-signature"].split(" ")) == 1
    Webhook(newest).verify(after.body, after.headers)
    for retired in (new, old):
        with pytest.raises(WebhookVerificationError):
            Webhook(retired).verify(after.body, after.headers)


def test_redelivery_and_replay_send_the_same_event_ids(
    delivering: RunningServer, receiver: Receiver
) -> None:
    api = make_workspace(delivering).client()
    endpoint_id, secret = create_endpoint(api, receiver.url, ["contact.created"])
    new_contact(api, 1)
    new_contact(api, 2)
    first, second = sorted(receiver.wait_for(2), key=lambda r: r.event["sequence"])

    api.ok(REDELIVER, {"input": {"endpointId": endpoint_id, "eventId": first.event["id"]}})
    redelivered = receiver.wait_for(3)[2]
    replay = {
        "endpointId": endpoint_id,
        "fromSequence": first.event["sequence"],
        "toSequence": second.event["sequence"],
    }
    count = api.ok(REPLAY, {"input": replay})["replayWebhookEvents"]["count"]
    replayed = receiver.wait_for(5)[3:]

    assert count == 2
    assert redelivered.headers["webhook-id"] == first.headers["webhook-id"]
    assert redelivered.body == first.body
    assert Counter(r.headers["webhook-id"] for r in replayed) == Counter(
        r.headers["webhook-id"] for r in (first, second)
    )
    for request in (redelivered, *replayed):
        Webhook(secret).verify(request.body, request.headers)


def test_a_test_event_is_sent_to_its_endpoint(
    delivering: RunningServer, receiver: Receiver
) -> None:
    api = make_workspace(delivering).client()
    endpoint_id, secret = create_endpoint(api, receiver.url, ["contact.created"])

    api.ok(SEND_TEST, {"id": endpoint_id})

    [request] = receiver.wait_for(1)
    body = Webhook(secret).verify(request.body, request.headers)
    assert body["type"] == "webhook.test"
    assert request.headers["webhook-id"] == body["id"]
