"""The dispatcher's metrics on /metrics (docs/operations.md): each attempt's outcome, and
how long the oldest pending deliveries have waited."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta

import pytest
from sqlalchemy import update

from supportdesk.auth.server_key import ServerKey
from supportdesk.db.tables import webhook_deliveries
from supportdesk.dispatch import Dispatcher
from supportdesk.dispatch import dispatcher as dispatcher_module
from supportdesk.domain.clock import now
from supportdesk.observability.metrics import DeliveryMetrics
from tests.conftest import BACKENDS, make_workspace
from tests.dispatch.conftest import _server
from tests.dispatch.helpers import create_endpoint, deliveries, eventually, new_contact
from tests.dispatch.receiver import Answer, Receiver
from tests.observability.scrape import Scrape, scrape, wait_for
from tests.servers import RunningServer

DELIVERIES = "supportdesk_webhook_deliveries_total"
WAITING = "supportdesk_webhook_oldest_pending_delivery_age_seconds"


@pytest.fixture(scope="module", params=BACKENDS)
def measured(request: pytest.FixtureRequest) -> Iterator[RunningServer]:
    """A server with metrics on that queues deliveries; tests start its dispatchers."""
    yield from _server(request.param, webhook_dispatch=False, metrics=True)


@contextmanager
def dispatching(running: RunningServer, concurrency: int = 32) -> Iterator[None]:
    """A dispatcher that records metrics, on the server's loop, as serve's does."""
    dispatcher = Dispatcher(
        running.db,
        running.settings,
        ServerKey(running.settings.secret_key, running.db),
        concurrency=concurrency,
        metrics=DeliveryMetrics(),
    )
    running.call(dispatcher.start())
    try:
        yield
    finally:
        running.call(dispatcher.stop())


def metrics_of(running: RunningServer) -> Scrape:
    return scrape(f"{running.base_url}/metrics")


def test_each_attempt_is_counted_by_its_outcome(
    measured: RunningServer, receiver: Receiver
) -> None:
    api = make_workspace(measured).client()
    endpoint_id, _ = create_endpoint(api, receiver.url, ["contact.created"])
    # The first contact's delivery succeeds; the second's fails (500), and its retry, 0.3 s
    # later, meets a 410 that disables the endpoint.
    receiver.answer(Answer(204), Answer(500), Answer(410))
    before = metrics_of(measured)

    with dispatching(measured):
        new_contact(api, 0)
        receiver.wait_for(1)
        new_contact(api, 1)
        receiver.wait_for(3)
        eventually(
            lambda: {d["status"] for d in deliveries(api, endpoint_id)} == {"succeeded", "failed"},
            what="both deliveries finished",
        )

    after = metrics_of(measured)
    counted = {
        outcome: after.total(DELIVERIES, outcome=outcome)
        - before.total(DELIVERIES, outcome=outcome)
        for outcome in ("succeeded", "retrying", "failed", "disabled")
    }
    assert counted == {"succeeded": 1, "retrying": 1, "failed": 0, "disabled": 1}


def test_the_oldest_due_and_retrying_deliveries_are_aged(
    measured: RunningServer, receiver: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(dispatcher_module, "WAITING_SECONDS", 0.1)
    workspace = make_workspace(measured)
    api = workspace.client()
    endpoint_id, _ = create_endpoint(api, receiver.url, ["contact.created"])
    for n in range(2):
        new_contact(api, n)
    first, second = deliveries(api, endpoint_id)
    # One waits for a retry, a minute from now, after a first attempt.
    measured.call(_waiting_for_a_retry(measured, workspace.id, first["id"]))

    # A dispatcher without a slot takes nothing: the other delivery stays due.
    with dispatching(measured, concurrency=0):
        waited = wait_for(
            lambda: metrics_of(measured),
            lambda found: (
                found.total(WAITING, state="due") >= 0.5
                and found.total(WAITING, state="scheduled") >= 0.5
            ),
        )
    assert 0.5 <= waited.total(WAITING, state="due") < 60
    assert 0.5 <= waited.total(WAITING, state="scheduled") < 60

    # Once delivered, nothing is due; the retry still waits.
    with dispatching(measured):
        receiver.wait_for(1)
        settled = wait_for(
            lambda: metrics_of(measured), lambda found: found.total(WAITING, state="due") == 0
        )
    assert settled.total(WAITING, state="due") == 0
    assert settled.total(WAITING, state="scheduled") >= 0.5
    assert second["id"] in {d["id"] for d in deliveries(api, endpoint_id)}


async def _waiting_for_a_retry(running: RunningServer, workspace_id: str, delivery_id: str) -> None:
    async with running.db.transaction() as connection:
        await connection.execute(
            update(webhook_deliveries)
            .where(
                webhook_deliveries.c.workspace_id == workspace_id,
                webhook_deliveries.c.id == delivery_id,
            )
            .values(attempts=1, next_attempt_at=now() + timedelta(minutes=1))
        )
