"""One workspace's dead receivers, retries and replays never hold up another workspace's
deliveries (CONTRACT section 11: the first attempt within a second of the commit): a
dispatcher gives each endpoint and each workspace a bounded share of its attempts, takes due
deliveries endpoint by endpoint rather than oldest first, and parks an endpoint whose
attempts keep timing out."""

from __future__ import annotations

import socket
import statistics
import threading
import time
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest

from supportdesk.db import Database
from supportdesk.domain.audit import CLI_ACTOR
from supportdesk.domain.clock import now
from supportdesk.domain.events import record_events
from tests.conftest import BACKENDS, make_workspace
from tests.dispatch.conftest import _server
from tests.dispatch.helpers import REPLAY, create_endpoint, deliveries, eventually, new_contact
from tests.dispatch.receiver import Receiver
from tests.servers import RunningServer

pytestmark = pytest.mark.slow

REPLAYED = 1_000
MEASURED = 5


class SilentReceiver:
    """Accepts connections and never answers: every attempt hangs until its time-out."""

    def __init__(self) -> None:
        self._listener = socket.create_server(("127.0.0.1", 0), backlog=1024)
        self.port = self._listener.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}/hook?token=abc"
        self.held: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self._listener.accept()
            except OSError:
                return  # closed
            self.held.append(connection)

    def close(self) -> None:
        self._listener.close()
        for connection in self.held:
            connection.close()


@pytest.fixture(scope="module", params=BACKENDS)
def patient(request: pytest.FixtureRequest) -> Iterator[RunningServer]:
    """A delivering server whose attempts wait the default 10 s for an answer."""
    yield from _server(request.param, webhook_dispatch=True, webhook_timeout_seconds=10)


@pytest.fixture(params=BACKENDS)
def parking(request: pytest.FixtureRequest) -> Iterator[RunningServer]:
    """A delivering server whose first retry comes 30 s after a failure."""
    yield from _server(request.param, webhook_dispatch=True, webhook_retry_schedule="30,60")


@pytest.fixture
def silent() -> Iterator[SilentReceiver]:
    receiver = SilentReceiver()
    yield receiver
    receiver.close()


async def _events(db: Database, workspace_id: str, how_many: int) -> tuple[int, int]:
    """`how_many` contact.created events in the workspace; their first and last sequence."""
    async with db.transaction() as connection:
        changes = [("contact.created", {"contact": {"n": n}}) for n in range(how_many)]
        recorded = await record_events(connection, workspace_id, CLI_ACTOR, changes)
    return recorded[0].sequence, recorded[-1].sequence


def _replay(api: Any, endpoint_id: str, first: int, last: int) -> None:
    replay = {"endpointId": endpoint_id, "fromSequence": first, "toSequence": last}
    replayed = api.ok(REPLAY, {"input": replay})["replayWebhookEvents"]
    assert (replayed["count"], replayed["error"]) == (last - first + 1, None)


def test_a_replay_to_dead_receivers_does_not_delay_another_workspaces_deliveries(
    patient: RunningServer, silent: SilentReceiver, receiver: Receiver
) -> None:
    stuck = make_workspace(patient, "Stuck")
    first, last = patient.call(_events(patient.db, stuck.id, REPLAYED))
    stuck_api = stuck.client()
    for _ in range(3):
        endpoint_id, _ = create_endpoint(stuck_api, silent.url, ["contact.created"])
        _replay(stuck_api, endpoint_id, first, last)
    other_api = make_workspace(patient, "Other").client()
    create_endpoint(other_api, receiver.url, ["contact.created"])

    delays = []
    for n in range(MEASURED):
        started = time.monotonic()
        new_contact(other_api, n)
        # The commit happens between `started` and the answer: this bounds it from above.
        delays.append(receiver.wait_for(n + 1, timeout=60)[n].at - started)
        # Spread over the stuck attempts' 10 s time-out, their retries and their parking.
        time.sleep(3)

    print(
        f"\n{patient.backend}: commit → first attempt beside {3 * REPLAYED} stuck deliveries:"
        f" {', '.join(f'{delay:.2f}' for delay in delays)} s"
    )
    assert len(silent.held) >= 3  # the stuck workspace's attempts did reach its receiver
    assert sorted(delays)[int(0.8 * MEASURED) - 1] < 2.0
    assert statistics.median(delays) < 2.0


def test_an_endpoint_that_keeps_timing_out_is_parked(
    parking: RunningServer, silent: SilentReceiver
) -> None:
    workspace = make_workspace(parking)
    api = workspace.client()
    first, last = parking.call(_events(parking.db, workspace.id, 40))
    endpoint_id, _ = create_endpoint(api, silent.url, ["contact.created"])
    _replay(api, endpoint_id, first, last)

    def parked() -> tuple[list[dict[str, Any]], list[dict[str, Any]]] | None:
        found = deliveries(api, endpoint_id)
        tried = [d for d in found if d["attempts"] == 1]
        untried = [d for d in found if d["attempts"] == 0]
        later = now() + timedelta(seconds=20)
        postponed = all(_moment(d["nextAttemptAt"]) > later for d in untried)
        return (tried, untried) if len(tried) >= 3 and untried and postponed else None

    # The first attempts time out (1 s); then the others wait the schedule's first 30 s.
    tried, untried = eventually(parked, timeout=15, what="the endpoint parked")
    sent = len(silent.held)
    time.sleep(2)

    assert len(silent.held) == sent  # nothing more is sent to it meanwhile
    assert all(d["lastError"].startswith("timed out") for d in tried)
    assert {d["status"] for d in untried} == {"pending"}
    assert len(tried) + len(untried) == 40


def _moment(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))
