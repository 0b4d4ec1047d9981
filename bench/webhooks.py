"""The webhook figures (CONTRACT §11): what one subscribed endpoint costs createIssue, and how
soon after the commit a delivery's first attempt arrives.

- **Cost**: the `createIssue-webhook` scenario runs in alternating rounds like the others
  (run.measure), after them and with the other servers stopped: the same warm `ours`
  creates issues in a workspace without an endpoint and in one whose endpoint takes every
  event type. Ours queues the deliveries in the mutation's
  transaction and sends them from serve's dispatcher process, on the same cores, so that
  work is in its throughput and CPU. After each run with the endpoint the bench notes the deliveries still pending when
  wrk stopped (a dispatcher falling behind would flatter the ratio) and waits until none
  is, so no run pays for another's deliveries; the server's CPU up to then is noted too.
- **Latency**: createIssue at a fixed rate, well below saturation (open loop: a request
  leaves on schedule whether or not the previous ones were answered), then the time from
  each event's `createdAt` to its first arrival at the receiver. `createdAt` is taken in the
  transaction, before the commit, and written in whole milliseconds (truncated), so the
  figure is an upper bound of commit → first attempt (by the rest of the transaction, and
  by under 1 ms of rounding). Both ends are this machine's wall clock. Measured with serve
  delivering (its dispatcher process), and with a separate `supportdesk dispatch` beside a
  serve whose dispatcher is off; both poll the queue five times a second.
- **Deliveries**: at the end every delivery of the run must have succeeded; the counts
  (and any that needed a retry, failed or are still pending) go into the report.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

import asyncpg
import httpx
import orjson

from bench import seed
from bench.load import Measurement
from bench.scenarios import WITH_ENDPOINT, Requests, Scenario
from bench.servers import Server

SCENARIO = "createIssue-webhook"
DRAIN_TIMEOUT = 120.0  # a failed attempt is retried after 5 s (±10%): time for a few
# createIssue per second for the latency figure: the first well below saturation on a
# 2-core machine (where createIssue with an endpoint saturates near 90-140/s), the second
# nearer it, to show what happens as the server fills up.
DEFAULT_RATES = (50.0, 100.0)

CREATE_ENDPOINT = """mutation CreateWebhookEndpoint($input: CreateWebhookEndpointInput!) {
  createWebhookEndpoint(input: $input) {
    webhookEndpoint { id url eventTypes status }
    secret
    error { code message fields { field code } }
  }
}"""


def create_endpoint(server_url: str, authorization: str, receiver_url: str) -> str:
    """An endpoint at the receiver taking every event type (no `eventTypes`), made through
    the API as a user would; its id."""
    variables = {
        "input": {"url": f"{receiver_url}/hook", "description": "bench receiver"},
    }
    answer = httpx.post(
        f"{server_url}/graphql",
        json={"query": CREATE_ENDPOINT, "variables": variables},
        headers={"Authorization": authorization},
        timeout=30,
    ).json()
    payload = (answer.get("data") or {}).get("createWebhookEndpoint") or {}
    if answer.get("errors") or payload.get("error") or not payload.get("webhookEndpoint"):
        raise RuntimeError(f"createWebhookEndpoint failed: {orjson.dumps(answer)[:600]!r}")
    if payload["webhookEndpoint"]["eventTypes"]:
        raise RuntimeError("the bench endpoint must take every event type")
    return str(payload["webhookEndpoint"]["id"])


# ---------------------------------------------------------------------------- the receiver


def receiver_records(receiver: Server, after: int = 0) -> list[tuple[float, str, str, str]]:
    """(arrival epoch seconds, webhook-id, createdAt, type) of each attempt from the
    `after`-th on."""
    answer = httpx.get(f"{receiver.url}/records", params={"after": after}, timeout=30)
    answer.raise_for_status()
    return [(float(a), str(b), str(c), str(d)) for a, b, c, d in orjson.loads(answer.content)]


def receiver_count(receiver: Server) -> int:
    return len(receiver_records(receiver))


# ---------------------------------------------------------------------------- the queue


async def _delivery_counts(url: str, workspace_id: str) -> dict[str, int]:
    rows = await seed.fetch(
        url,
        "SELECT status, count(*), sum(CASE WHEN attempts > 1 THEN 1 ELSE 0 END) "
        "FROM webhook_deliveries WHERE workspace_id = $1 GROUP BY status",
        workspace_id,
    )
    counts = {"pending": 0, "succeeded": 0, "failed": 0, "retried": 0}
    for status, count, retried in rows:
        counts[str(status)] = int(count)
        counts["retried"] += int(retried or 0)
    counts["total"] = counts["pending"] + counts["succeeded"] + counts["failed"]
    return counts


def delivery_counts(url: str, workspace_id: str) -> dict[str, int]:
    """The workspace's deliveries by status, their total, and how many took > 1 attempt.
    Waits for a connection when PostgreSQL has none to spare (other sessions may be using
    this server's connections too)."""
    for _ in range(100):
        try:
            return asyncio.run(_delivery_counts(url, workspace_id))
        except asyncpg.TooManyConnectionsError:
            time.sleep(0.2)
    return asyncio.run(_delivery_counts(url, workspace_id))


def drain(url: str, workspace_id: str, timeout: float = DRAIN_TIMEOUT) -> tuple[float, int]:
    """Wait until no delivery of the workspace is pending: (seconds waited, still pending)."""
    started = time.monotonic()
    while True:
        pending = delivery_counts(url, workspace_id)["pending"]
        waited = time.monotonic() - started
        if pending == 0 or waited > timeout:
            return waited, pending
        time.sleep(0.05)


# ---------------------------------------------------------------------------- steady load


@dataclass
class SteadyLoad:
    """What a fixed-rate run sent and how the server answered."""

    rate: float
    seconds: float
    sent: int = 0
    errors: int = 0
    started_at: float = 0.0  # epoch
    answered_ms: list[float] = field(default_factory=list)

    @property
    def achieved_rate(self) -> float:
        return self.sent / self.seconds if self.seconds else 0.0


async def _steady(server_url: str, requests: Requests, rate: float, seconds: float) -> SteadyLoad:
    taken = SteadyLoad(rate, seconds, started_at=time.time())
    headers = requests.headers
    limits = httpx.Limits(max_connections=256, max_keepalive_connections=256)
    async with httpx.AsyncClient(base_url=server_url, limits=limits, timeout=30) as client:

        async def one(body: bytes) -> None:
            started = time.monotonic()
            try:
                answer = await client.post("/graphql", content=body, headers=headers)
                problem = answer.status_code != 200 or b'"errors"' in answer.content
            except httpx.HTTPError:
                problem = True
            taken.answered_ms.append((time.monotonic() - started) * 1000)
            taken.errors += problem

        loop = asyncio.get_running_loop()
        start = loop.time()
        total = int(rate * seconds)
        tasks = []
        for n in range(total):
            # Open loop: each request leaves at its time, answered or not the ones before.
            await asyncio.sleep(max(0.0, start + n / rate - loop.time()))
            tasks.append(asyncio.create_task(one(requests.bodies[n % len(requests.bodies)])))
            taken.sent += 1
        await asyncio.gather(*tasks)
    return taken


def steady_load(server_url: str, requests: Requests, rate: float, seconds: float) -> SteadyLoad:
    """`rate` requests a second for `seconds`, open loop, to `server_url`/graphql."""
    return asyncio.run(_steady(server_url, requests, rate, seconds))


# ---------------------------------------------------------------------------- figures


def percentile(values: list[float], share: float) -> float | None:
    """Nearest rank: the smallest value at least `share` of them do not exceed."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def _epoch(created_at: str) -> float:
    return datetime.fromisoformat(created_at.replace("Z", "+00:00")).timestamp()


def first_arrivals(records: list[tuple[float, str, str, str]]) -> dict[str, tuple[float, str]]:
    """Each event's first attempt: webhook-id -> (arrival, createdAt)."""
    found: dict[str, tuple[float, str]] = {}
    for arrived, webhook_id, created_at, _kind in records:
        if webhook_id not in found or arrived < found[webhook_id][0]:
            found[webhook_id] = (arrived, created_at)
    return found


def latency_figures(records: list[tuple[float, str, str, str]]) -> dict[str, Any]:
    """createdAt → first arrival, in ms, over the events of these records."""
    firsts = first_arrivals(records)
    delays = [(arrived - _epoch(created)) * 1000 for arrived, created in firsts.values()]
    return {
        "events": len(firsts),
        "attempts": len(records),
        "p50_ms": percentile(delays, 0.50),
        "p95_ms": percentile(delays, 0.95),
        "p99_ms": percentile(delays, 0.99),
        "max_ms": max(delays) if delays else None,
        "min_ms": min(delays) if delays else None,
    }


# ---------------------------------------------------------------------------- the run


class Measured(Protocol):
    """A server whose CPU time can be read (servers.Server)."""

    def cpu_seconds(self) -> float: ...


@dataclass
class WebhookBench:
    """The webhook figures of one backend: hooks around the comparison's runs, the latency
    runs, and the final count of deliveries."""

    database_url: str
    receiver: Server
    without_workspace: str  # workspace ids
    with_workspace: str
    server_of: Callable[[str], Measured]  # name -> running server (for its CPU)
    runs: list[dict[str, Any]] = field(default_factory=list)
    latency: dict[str, Any] = field(default_factory=dict)
    _before: dict[str, float] = field(default_factory=dict)

    # Called by run.measure around every run of every scenario.
    def before(self, scenario: Scenario, name: str) -> None:
        if scenario.key != SCENARIO or name != WITH_ENDPOINT:
            return
        drain(self.database_url, self.with_workspace)  # what verify() sent, say
        self._before = {
            "received": receiver_count(self.receiver),
            "deliveries": delivery_counts(self.database_url, self.with_workspace)["total"],
            "cpu": self.server_of(name).cpu_seconds(),
            "receiver_cpu": self.receiver.cpu_seconds(),
        }

    def after(self, scenario: Scenario, name: str, taken: Measurement) -> None:
        if scenario.key != SCENARIO or name != WITH_ENDPOINT:
            return
        backlog = delivery_counts(self.database_url, self.with_workspace)["pending"]
        waited, pending = drain(self.database_url, self.with_workspace)
        cpu = self.server_of(name).cpu_seconds() - self._before["cpu"]
        deliveries = (
            delivery_counts(self.database_url, self.with_workspace)["total"]
            - self._before["deliveries"]
        )
        received = receiver_count(self.receiver) - int(self._before["received"])
        receiver_cpu = self.receiver.cpu_seconds() - self._before["receiver_cpu"]
        if taken.round < 0:
            return  # a warm-up: drained, not recorded
        run = {
            "round": taken.round,
            "requests": taken.requests,
            "deliveries": deliveries,
            "received": received,
            "pending_when_load_stopped": backlog,
            "drain_seconds": round(waited, 2),
            "still_pending": pending,
            "cpu_us_per_request_with_drain": cpu * 1e6 / max(1, taken.requests),
            "receiver_cpu_us_per_delivery": receiver_cpu * 1e6 / max(1, received),
        }
        self.runs.append(run)
        if backlog or pending:
            print(
                f"    webhook deliveries pending when wrk stopped: {backlog}, "
                f"drained in {waited:.1f} s" + (f", {pending} still pending" if pending else "")
            )

    def measure_latency(
        self,
        layout: str,
        server_url: str,
        requests: Requests,
        rate: float,
        seconds: float,
        dispatcher: Measured | None = None,
    ) -> dict[str, Any]:
        """createIssue at `rate` per second for `seconds` into the workspace with the
        endpoint on the server at `server_url`, then createdAt → first arrival of every
        event it made; with a separate `dispatcher`, also its CPU per delivery."""
        drain(self.database_url, self.with_workspace)
        offset = receiver_count(self.receiver)
        before = delivery_counts(self.database_url, self.with_workspace)["total"]
        cpu_before = dispatcher.cpu_seconds() if dispatcher else 0.0
        load = steady_load(server_url, requests, rate, seconds)
        waited, pending = drain(self.database_url, self.with_workspace)
        cpu = dispatcher.cpu_seconds() - cpu_before if dispatcher else None
        records = receiver_records(self.receiver, offset)
        made = delivery_counts(self.database_url, self.with_workspace)["total"] - before
        figures = {
            "layout": layout,
            "rate": rate,
            "seconds": seconds,
            "requests": load.sent,
            "request_errors": load.errors,
            "achieved_rate": round(load.achieved_rate, 1),
            "answer_p50_ms": percentile(load.answered_ms, 0.50),
            "answer_p95_ms": percentile(load.answered_ms, 0.95),
            "deliveries": made,
            **latency_figures(records),
            "drain_seconds": round(waited, 2),
            "still_pending": pending,
            "dispatcher_cpu_us_per_delivery": cpu * 1e6 / max(1, made) if cpu is not None else None,
        }
        self.latency[f"{layout} {rate:g}/s"] = figures
        print(
            f"  [webhook latency, {layout}] {load.sent} createIssue at {rate:g}/s "
            f"(answers p50 {_ms(figures['answer_p50_ms'])}, p95 {_ms(figures['answer_p95_ms'])}): "
            f"createdAt → first attempt p50 {_ms(figures['p50_ms'])}, "
            f"p95 {_ms(figures['p95_ms'])}, max {_ms(figures['max_ms'])} "
            f"over {figures['events']} events"
        )
        return figures

    def deliveries(self) -> dict[str, Any]:
        """Every delivery of the run, once none is pending (or the wait gave up)."""
        waited, _ = drain(self.database_url, self.with_workspace)
        counts = delivery_counts(self.database_url, self.with_workspace)
        records = receiver_records(self.receiver)
        stray = delivery_counts(self.database_url, self.without_workspace)["total"]
        counts.update(
            {
                "received_attempts": len(records),
                "received_events": len(first_arrivals(records)),
                "in_workspace_without_endpoint": stray,
                "all_succeeded": counts["succeeded"] == counts["total"] and stray == 0,
            }
        )
        print(
            f"  [webhook deliveries] {counts['succeeded']:,} of {counts['total']:,} succeeded "
            f"({counts['retried']} after a retry, {counts['failed']} failed, "
            f"{counts['pending']} pending after {waited:.0f} s); the receiver saw "
            f"{counts['received_events']:,} events in {counts['received_attempts']:,} attempts"
        )
        return counts

    def result(self) -> dict[str, Any]:
        return {"runs": self.runs, "latency": self.latency, "deliveries": self.deliveries()}


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:,.0f} ms"
