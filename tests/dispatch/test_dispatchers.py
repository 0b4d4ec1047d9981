"""Dispatchers started by hand on a server that delivers nothing itself: the address check
of the dispatcher's own settings, leases that run out, several dispatchers on one database,
endpoints switched off while deliveries wait, and the 5-day rule."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

from sqlalchemy import func, select, update

from supportdesk.auth.server_key import ServerKey
from supportdesk.db import Database
from supportdesk.db.tables import webhook_deliveries, webhook_endpoints
from supportdesk.dispatch import Dispatcher, outcomes, queue
from supportdesk.dispatch.client import Reply
from supportdesk.dispatch.recorder import OutcomeRecorder
from supportdesk.domain.audit import CLI_ACTOR
from supportdesk.domain.clock import now
from supportdesk.domain.events import record_events
from tests.client import GraphQLClient
from tests.conftest import make_workspace
from tests.dispatch.helpers import create_endpoint, deliveries, endpoint, eventually, new_contact
from tests.dispatch.receiver import Answer, Received, Receiver
from tests.graphql.events.helpers import all_events
from tests.servers import RunningServer

DELETE_ENDPOINT = """mutation($id: ID!) {
  deleteWebhookEndpoint(id: $id) { webhookEndpoint { id } error { code } } }"""
UPDATE_ENDPOINT = """
mutation($input: UpdateWebhookEndpointInput!) {
  updateWebhookEndpoint(input: $input) { webhookEndpoint { enabled } error { code message } }
}
"""


@contextmanager
def dispatching(
    running: RunningServer, db: Database | None = None, **settings: Any
) -> Iterator[Dispatcher]:
    """A dispatcher on the server's loop (on `db`, as another process would be, if given)."""
    db = db or running.db
    changed = running.settings.model_copy(update=settings)
    dispatcher = Dispatcher(db, changed, ServerKey(changed.secret_key, db))
    running.call(dispatcher.start())
    try:
        yield dispatcher
    finally:
        running.call(dispatcher.stop())


@contextmanager
def another_process(running: RunningServer) -> Iterator[Database]:
    """A database handle of its own, as a second process has; its statements are checked."""
    db = Database(running.settings.database_url, 2)
    running.statements.attach(db)
    try:
        yield db
    finally:
        running.call(db.dispose())


def only_delivery(api: GraphQLClient, endpoint_id: str, **expected: Any) -> dict[str, Any]:
    def check() -> dict[str, Any] | None:
        found = deliveries(api, endpoint_id)
        assert len(found) == 1, found
        matches = all(found[0][name] == value for name, value in expected.items())
        return found[0] if matches else None

    return eventually(check, what=f"the delivery has {expected}")


def test_an_address_allowed_when_saved_is_refused_by_a_stricter_dispatcher(
    quiet: RunningServer, receiver: Receiver
) -> None:
    # Saved while private addresses were allowed (the server's setting) ...
    api = make_workspace(quiet).client()
    plain, _ = create_endpoint(api, receiver.url, ["contact.created"])
    tls, _ = create_endpoint(
        api, f"https://localhost:{receiver.port}/hook?token=abc", ["contact.created"]
    )
    new_contact(api)

    # ... and sent by a dispatcher whose settings no longer allow them.
    with dispatching(quiet, webhook_allow_private=False):
        refused_scheme = only_delivery(api, plain, attempts=1)
        refused_address = only_delivery(api, tls, attempts=1)

    assert refused_scheme["lastError"].startswith("unsafe URL: the URL must start with https://")
    assert refused_address["lastError"] == "unsafe URL: the URL's host is not a public address"
    assert refused_scheme["lastResponseStatus"] is None
    assert receiver.received == []


def test_a_lease_that_ran_out_is_taken_again_and_the_late_outcome_dropped(
    quiet: RunningServer, receiver: Receiver
) -> None:
    api = make_workspace(quiet).client()
    endpoint_id, _ = create_endpoint(api, receiver.url, ["contact.created"])
    new_contact(api)
    # A dispatcher takes the delivery, then dies before its attempt.
    taken = quiet.call(queue.claim(quiet.db, now(), 100))
    [crashed] = [due for due in taken if due.endpoint_id == endpoint_id]

    # While the lease holds, nobody takes it; once it has run out, it is due again.
    assert crashed.delivery_id not in {
        due.delivery_id for due in quiet.call(queue.claim(quiet.db, now(), 100))
    }
    quiet.call(_lease_ran_out(quiet.db, crashed.workspace_id, crashed.delivery_id))
    with dispatching(quiet):
        delivered = only_delivery(api, endpoint_id, status="succeeded")
    assert delivered["attempts"] == 1
    assert len(receiver.wait_for(1)) == 1

    # The first dispatcher's outcome, if it ever came, no longer holds the lease.
    late = Reply(500, "HTTP 500", 5)
    quiet.call(_write_at_once(quiet.db, [outcomes.Attempt(crashed, late, now())], (1.0,)))
    assert only_delivery(api, endpoint_id)["status"] == "succeeded"


def _three_taken(
    quiet: RunningServer, receiver: Receiver
) -> tuple[GraphQLClient, str, list[queue.Due]]:
    """A new workspace's endpoint with three deliveries, taken from the queue by hand."""
    api = make_workspace(quiet).client()
    endpoint_id, _ = create_endpoint(api, receiver.url, ["contact.created"])
    for n in range(3):
        new_contact(api, n)
    taken = [
        due
        for due in quiet.call(queue.claim(quiet.db, now(), 100))
        if due.endpoint_id == endpoint_id
    ]
    assert len(taken) == 3
    return api, endpoint_id, taken


def test_a_batch_of_outcomes_is_written_whole_each_as_it_came_out(
    quiet: RunningServer, receiver: Receiver
) -> None:
    api, endpoint_id, taken = _three_taken(quiet, receiver)
    replies = [Reply(200, None, 3), Reply(500, "HTTP 500", 4), Reply(204, None, 5)]

    statuses = quiet.call(
        _write_at_once(
            quiet.db,
            [outcomes.Attempt(d, r, now()) for d, r in zip(taken, replies, strict=True)],
            (60.0,),
        )
    )

    assert statuses == ["succeeded", "pending", "succeeded"]
    by_id = {d["id"]: d for d in deliveries(api, endpoint_id)}
    recorded = [by_id[due.delivery_id] for due in taken]
    assert [
        (d["status"], d["attempts"], d["lastResponseStatus"], d["durationMs"]) for d in recorded
    ] == [
        ("succeeded", 1, 200, 3),
        ("pending", 1, 500, 4),
        ("succeeded", 1, 204, 5),
    ]
    assert recorded[1]["lastError"] == "HTTP 500" and recorded[1]["nextAttemptAt"] is not None


async def _write_at_once(
    db: Database, attempts: list[outcomes.Attempt], schedule: tuple[float, ...]
) -> list[str]:
    """Decide and write outcomes as the recorder does, without its gathering time."""
    batch = [outcomes.finish(attempt, now(), schedule) for attempt in attempts]
    await outcomes.write_outcomes(db, batch)
    return [one.status for one in batch]


async def _statuses(db: Database, workspace_id: str, delivery_ids: list[str]) -> list[str]:
    async with db.read() as connection:
        rows = await connection.execute(
            select(webhook_deliveries.c.id, webhook_deliveries.c.status).where(
                webhook_deliveries.c.workspace_id == workspace_id,
                webhook_deliveries.c.id.in_(delivery_ids),
            )
        )
        found = dict(rows.all())
    return [found[delivery_id] for delivery_id in delivery_ids]


def test_outcomes_are_decided_at_once_and_written_together_once_gathered(
    quiet: RunningServer, receiver: Receiver
) -> None:
    api, endpoint_id, taken = _three_taken(quiet, receiver)
    workspace_id = taken[0].workspace_id
    replies = [Reply(200, None, 3), Reply(500, "HTTP 500", 4), Reply(410, "HTTP 410", 5)]
    ids = [due.delivery_id for due in taken]

    async def record_then_drain() -> tuple[list[str], list[str]]:
        recorder = OutcomeRecorder(quiet.db, (60.0,), gather_seconds=60)
        decided = [
            recorder.record(outcomes.Attempt(due, reply, now()))
            for due, reply in zip(taken, replies, strict=True)
        ]
        await asyncio.sleep(0.2)  # well inside the gathering time: nothing written yet
        unwritten = await _statuses(quiet.db, workspace_id, ids)
        await recorder.drain()
        return decided, unwritten

    decided, unwritten = quiet.call(record_then_drain())

    assert decided == ["succeeded", "pending", "failed"]
    assert unwritten == ["pending"] * 3
    assert quiet.call(_statuses(quiet.db, workspace_id, ids)) == decided
    assert endpoint(api, endpoint_id)["disabledReason"] == "gone"


def test_outcomes_waiting_go_with_the_next_claim_or_back_to_their_own_write(
    quiet: RunningServer, receiver: Receiver
) -> None:
    _, _, taken = _three_taken(quiet, receiver)
    workspace_id = taken[0].workspace_id
    ids = [due.delivery_id for due in taken]

    async def claim_with_the_outcomes() -> tuple[list[str], list[str], list[str]]:
        recorder = OutcomeRecorder(quiet.db, (60.0,), gather_seconds=60)
        recorder.record(outcomes.Attempt(taken[0], Reply(204, None, 3), now()))
        # A claim that picks nothing writes nothing: the outcome waits for its own write.
        async with recorder.along() as first:
            assert first is not None
            await queue.take(quiet.db, now(), [], first=first)
        untouched = await _statuses(quiet.db, workspace_id, ids)
        # A claim that writes: the outcome is committed with it, long before its gathering
        # time is up; and one whose transaction fails gives the outcome back.
        async with recorder.along() as first:
            assert first is not None
            async with quiet.db.transaction() as connection:
                await first(connection)
        with_claim = await _statuses(quiet.db, workspace_id, ids)
        recorder.record(outcomes.Attempt(taken[1], Reply(204, None, 3), now()))
        try:
            async with recorder.along() as first, quiet.db.transaction() as connection:
                assert first is not None
                await first(connection)
                raise RuntimeError("the claim failed")
        except RuntimeError:
            pass
        rolled_back = await _statuses(quiet.db, workspace_id, ids)
        await recorder.drain()
        return untouched, with_claim, rolled_back

    untouched, with_claim, rolled_back = quiet.call(claim_with_the_outcomes())

    assert untouched == ["pending"] * 3
    assert with_claim == ["succeeded", "pending", "pending"]
    assert rolled_back == ["succeeded", "pending", "pending"]
    assert quiet.call(_statuses(quiet.db, workspace_id, ids)) == [
        "succeeded",
        "succeeded",
        "pending",
    ]


async def _lease_ran_out(db: Database, workspace_id: str, delivery_id: str) -> None:
    """As if the lease's 60 s had passed."""
    async with db.transaction() as connection:
        await connection.execute(
            update(webhook_deliveries)
            .where(
                webhook_deliveries.c.workspace_id == workspace_id,
                webhook_deliveries.c.id == delivery_id,
            )
            .values(next_attempt_at=now() - timedelta(seconds=1))
        )


def test_two_dispatchers_never_send_one_delivery_twice(
    quiet: RunningServer, receiver: Receiver
) -> None:
    workspace = make_workspace(quiet)
    endpoint_id, _ = create_endpoint(workspace.client(), receiver.url, ["contact.created"])
    how_many = 300

    with (
        another_process(quiet) as first_db,
        another_process(quiet) as second_db,
        dispatching(quiet, first_db),
        dispatching(quiet, second_db),
    ):
        received = _queued_then_each_recorded_once(
            quiet, receiver, workspace.id, endpoint_id, how_many=how_many, timeout=10
        )

    ids = Counter(request.headers["webhook-id"] for request in received)
    assert len(ids) == how_many
    assert set(ids.values()) == {1}
    assert len(receiver.received) == how_many


def test_attempts_queued_behind_a_slow_receiver_past_their_lease_are_not_sent_twice(
    quiet: RunningServer, receiver: Receiver
) -> None:
    """32 deliveries to a receiver that takes 0.45 s an answer, under a 3 s lease: were they
    all taken at once and sent a few at a time, the last would start after their lease has
    run out and the dispatcher has taken them again. Each event arrives once."""
    workspace = make_workspace(quiet)
    endpoint_id, _ = create_endpoint(workspace.client(), receiver.url, ["contact.created"])
    how_many = 32
    receiver.answer(*[Answer(204, delay=0.45)] * (2 * how_many))

    with dispatching(quiet, webhook_lease_seconds=3, webhook_timeout_seconds=1.0):
        received = _queued_then_each_recorded_once(
            quiet, receiver, workspace.id, endpoint_id, how_many=how_many, timeout=15
        )

    assert Counter(request.headers["webhook-id"] for request in received).most_common(1)[0][1] == 1
    assert len(receiver.received) == how_many


def _queued_then_each_recorded_once(
    quiet: RunningServer,
    receiver: Receiver,
    workspace_id: str,
    endpoint_id: str,
    *,
    how_many: int,
    timeout: float,
) -> list[Received]:
    """Events in the workspace, then every delivery to the endpoint recorded as succeeded
    at its first attempt; what the receiver got meanwhile."""
    quiet.call(_queue_events(quiet.db, workspace_id, how_many))
    received = receiver.wait_for(how_many, timeout=30)
    eventually(
        lambda: (
            quiet.call(_outcomes(quiet.db, workspace_id, endpoint_id))
            == {("succeeded", 1): how_many}
        ),
        timeout=timeout,
        what="every delivery recorded, each after one attempt",
    )
    return received


async def _queue_events(db: Database, workspace_id: str, how_many: int) -> None:
    async with db.transaction() as connection:
        changes = [("contact.created", {"contact": {"n": n}}) for n in range(how_many)]
        await record_events(connection, workspace_id, CLI_ACTOR, changes)


async def _outcomes(
    db: Database, workspace_id: str, endpoint_id: str
) -> dict[tuple[str, int], int]:
    """How many deliveries to the endpoint have each (status, attempts)."""
    query = (
        select(webhook_deliveries.c.status, webhook_deliveries.c.attempts, func.count())
        .where(
            webhook_deliveries.c.workspace_id == workspace_id,
            webhook_deliveries.c.endpoint_id == endpoint_id,
        )
        .group_by(webhook_deliveries.c.status, webhook_deliveries.c.attempts)
    )
    async with db.read() as connection:
        return {
            (status, attempts): count for status, attempts, count in await connection.execute(query)
        }


def test_a_delivery_for_a_disabled_endpoint_fails_unsent(
    quiet: RunningServer, receiver: Receiver
) -> None:
    api = make_workspace(quiet).client()
    endpoint_id, _ = create_endpoint(api, receiver.url, ["contact.created"])
    new_contact(api)
    api.ok(UPDATE_ENDPOINT, {"input": {"id": endpoint_id, "enabled": False}})

    with dispatching(quiet):
        failed = only_delivery(api, endpoint_id, status="failed")

    assert (failed["lastError"], failed["attempts"]) == ("endpoint disabled", 0)
    assert receiver.received == []


def test_an_endpoint_failing_for_five_days_is_disabled(
    quiet: RunningServer, receiver: Receiver
) -> None:
    workspace = make_workspace(quiet)
    api = workspace.client()
    endpoint_id, _ = create_endpoint(api, receiver.url, ["contact.created"])
    quiet.call(_created_days_ago(quiet.db, workspace.id, endpoint_id, 6))
    receiver.answer(Answer(500))
    new_contact(api)

    with dispatching(quiet):
        failed = only_delivery(api, endpoint_id, status="failed")

    # Disabled by the failed attempt; the retry then finds the endpoint off.
    assert (failed["attempts"], failed["lastError"]) == (1, "endpoint disabled")
    found = endpoint(api, endpoint_id)
    assert (found["enabled"], found["disabledReason"]) == (False, "failing")
    [disabled] = all_events(api, types=["webhook_endpoint.updated"])
    assert disabled["actor"]["type"] == "system"
    assert disabled["data"]["webhookEndpoint"]["disabledReason"] == "failing"


async def _created_days_ago(db: Database, workspace_id: str, endpoint_id: str, days: int) -> None:
    async with db.transaction() as connection:
        await connection.execute(
            update(webhook_endpoints)
            .where(
                webhook_endpoints.c.workspace_id == workspace_id,
                webhook_endpoints.c.id == endpoint_id,
            )
            .values(created_at=now() - timedelta(days=days))
        )
