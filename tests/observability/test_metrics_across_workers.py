"""`supportdesk serve --workers 4 --metrics-port P` under a mixed load: one scrape of the
supervisor's metrics port shows the sum over all four workers, request for request, on SQLite
and on PostgreSQL; the public port keeps /metrics to itself (404) by default."""

from __future__ import annotations

import json
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

from tests.conftest import BACKENDS, unique_email
from tests.observability.scrape import Scrape, scrape, wait_for
from tests.processes import ServeProcess, command_env, free_port, run_cli
from tests.servers import create_postgres_database, drop_postgres_database

pytestmark = pytest.mark.processes


WORKERS = 4
POOL_SIZE = 2
LIMIT = "supportdesk_db_pool_max_connections"
FAILED_AUTH_PER_MINUTE = 3  # per worker: no Redis, so each worker limits on its own

CREATE = """mutation Create($input: CreateIssueInput!) {
  createIssue(input: $input) { issue { id } error { code } } }"""
LOOKUP = "query Lookup($id: ID!) { issue(id: $id) { id subject } }"


@dataclass
class Served:
    backend: str
    process: ServeProcess
    metrics_url: str
    key: str
    # No connection is reused, so that the kernel spreads the requests over the workers.
    http: httpx.Client = field(
        default_factory=lambda: httpx.Client(
            timeout=30, limits=httpx.Limits(max_keepalive_connections=0)
        )
    )


def pool_limits(backend: str) -> dict[str, int]:
    """Each worker's pools and their most connections (db/database.py)."""
    if backend == "sqlite":
        return {"writer": 1, "reader": 1}
    return {"shared": 2 * POOL_SIZE}


def _database(request: pytest.FixtureRequest, backend: str) -> Iterator[str]:
    if backend == "sqlite":
        with tempfile.TemporaryDirectory(prefix="supportdesk-metrics-") as folder:
            yield f"sqlite:///{Path(folder) / 'metrics.db'}"
        return
    request.getfixturevalue("postgresql_url")  # skips (or fails in CI) without PostgreSQL
    url = create_postgres_database()
    try:
        yield url
    finally:
        drop_postgres_database(url)


@pytest.fixture(scope="module", params=BACKENDS)
def served(request: pytest.FixtureRequest) -> Iterator[Served]:
    for database_url in _database(request, request.param):
        yield from _serve(request.param, database_url)


def _serve(backend: str, database_url: str) -> Iterator[Served]:
    env = command_env(
        database_url=database_url,
        db_pool_size=str(POOL_SIZE),
        failed_auth_per_minute=str(FAILED_AUTH_PER_MINUTE),
    )
    made = json.loads(
        run_cli(env, "init", "--workspace", "Metrics", "--admin-email", unique_email(), "--json")
    )
    metrics_port = free_port()
    metrics_url = f"http://127.0.0.1:{metrics_port}/metrics"
    process = ServeProcess(env, WORKERS, ("--metrics-port", str(metrics_port))).start()
    try:
        process.wait_ready()
        # Every worker has built its app (and set its pool limits), not only the first.
        all_up = WORKERS * sum(pool_limits(backend).values())
        wait_for(lambda: scrape(metrics_url), lambda s: s.total(LIMIT) == all_up, timeout=60)
        yield Served(backend, process, metrics_url, made["api_key"])
    finally:
        process.stop()


def _post(served: Served, body: dict[str, object], key: str | None = None) -> httpx.Response:
    headers = {"Authorization": f"Bearer {key or served.key}"}
    return served.http.post(f"{served.process.base_url}/graphql", json=body, headers=headers)


def _load(served: Served) -> Counter[tuple[str, str]]:
    """Creates, lookups, anonymous queries, refused keys and a broken document, several at
    once; the (operation label, status) of every answer."""
    sent: Counter[tuple[str, str]] = Counter()

    def create(index: int) -> str:
        variables = {
            "input": {
                "subject": f"Issue {index}",
                "body": "Hello",
                "requesterEmail": "r@example.com",
            }
        }
        answer = _post(served, {"query": CREATE, "variables": variables})
        sent[("Create", str(answer.status_code))] += 1
        return str(answer.json()["data"]["createIssue"]["issue"]["id"])

    calls: list[tuple[str, Callable[[], httpx.Response]]] = []
    with ThreadPoolExecutor(8) as pool:
        ids = list(pool.map(create, range(12)))
        calls += [
            ("Lookup", lambda i=i: _post(served, {"query": LOOKUP, "variables": {"id": i}}))
            for i in ids * 2
        ]
        calls += [("anonymous", lambda: _post(served, {"query": "{ apiInfo }"}))] * 10
        calls += [
            ("unknown", lambda: _post(served, {"query": "{ apiInfo }"}, key="svc_mk_nope"))
        ] * 16
        calls += [("unknown", lambda: _post(served, {"query": "query Broken {"}))] * 3
        answers = list(pool.map(lambda call: (call[0], call[1]()), calls))
    sent.update((label, str(response.status_code)) for label, response in answers)
    return sent


def _graphql_requests(found: Scrape) -> Counter[tuple[str, str]]:
    counted: Counter[tuple[str, str]] = Counter()
    for labels, value in found.samples("supportdesk_http_requests_total"):
        if labels["handler"] == "graphql":
            counted[(labels["operation"], labels["status"])] += int(value)
    return counted


def test_one_scrape_counts_every_request_of_every_worker(served: Served) -> None:
    sent = _load(served)

    found = wait_for(
        lambda: scrape(served.metrics_url),
        lambda s: sum(_graphql_requests(s).values()) >= sum(sent.values()),
    )

    assert _graphql_requests(found) == sent
    assert {k for k in sent if k[1] == "429"}, "the failed-authentication limit was never spent"
    assert found.total("supportdesk_rate_limit_refusals_total", limiter="failed_auth") == sum(
        n for (_, status), n in sent.items() if status == "429"
    )
    latencies = found.total("supportdesk_http_request_duration_seconds_count", operation="Lookup")
    assert latencies == sent[("Lookup", "200")]
    access = [line for line in served.process.json_lines() if line.get("message") == "request"]
    served_by = {line["pid"] for line in access if line["path"] == "/graphql"}
    assert len(served_by) > 1, "every request went to one worker: nothing was summed"


def test_pool_gauges_add_up_the_live_workers(served: Served) -> None:
    _post(served, {"query": "{ apiInfo }"})

    found = wait_for(
        lambda: scrape(served.metrics_url),
        lambda s: s.total("supportdesk_db_pool_checked_out_connections") == 0,
    )

    limits = {labels["pool"]: value for labels, value in found.samples(LIMIT)}
    per_worker = pool_limits(served.backend)
    assert limits == {pool: WORKERS * n for pool, n in per_worker.items()}


def test_the_public_port_has_no_metrics_by_default(served: Served) -> None:
    response = httpx.get(f"{served.process.base_url}/metrics", timeout=10)

    assert response.status_code == 404
