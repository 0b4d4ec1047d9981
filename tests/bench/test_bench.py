"""The benchmark's own code must not rot: seed a tiny workspace into the test database,
serve the floor beside the test server, and send every scenario once to both (no wrk)."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import httpx
import pytest
import uvicorn
from bench import report
from bench.floor import FloorApp
from bench.load import Measurement
from bench.run import Options, in_turn, prepare, scenarios_for, verify
from bench.scenarios import Scenario
from bench.seed import Plan, WorkspaceSpec
from bench.servers import ROOT, bench_env

from supportdesk.auth.server_key import ServerKey
from tests.servers import RunningServer

MAIN = WorkspaceSpec("bench-test-main", 30, messages_per_issue=3, long_threads=2, articles=20)
TINY = Plan(
    main=MAIN,
    writes=WorkspaceSpec("bench-test-writes", 5, messages_per_issue=2),
    sizes=(WorkspaceSpec("bench-test-small", 10, messages_per_issue=3), MAIN),
)


class ThreadedFloor:
    """The floor's ASGI app in a uvicorn thread on a free port."""

    def __init__(self, database_url: str, secret: str) -> None:
        self._socket = socket.socket()
        self._socket.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._socket.getsockname()[1]}"
        app = FloorApp(database_url, secret)
        config = uvicorn.Config(app, log_level="warning", lifespan="on")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=lambda: asyncio.run(self._server.serve(sockets=[self._socket])), daemon=True
        )

    def __enter__(self) -> ThreadedFloor:
        self._thread.start()
        deadline = time.monotonic() + 15
        while not self._server.started:
            assert time.monotonic() < deadline and self._thread.is_alive(), "floor did not start"
            time.sleep(0.02)
        return self

    def __exit__(self, *_: object) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=15)


@pytest.fixture
def floor(server: RunningServer) -> Iterator[ThreadedFloor]:
    # The floor signs its cursors with the server's key, so their answers can be compared.
    secret = server.call(ServerKey(server.settings.secret_key, server.db).secret())
    with ThreadedFloor(server.database_url, secret) as running:
        yield running


@pytest.fixture
def metrics_server(server: RunningServer) -> Iterator[RunningServer]:
    """Ours on the same database with Prometheus metrics recorded, as the bench runs it."""
    running = RunningServer(server.backend, server.database_url, metrics=True).start()
    yield running
    running.stop()


def test_seeding_and_one_round_of_every_scenario(
    server: RunningServer, floor: ThreadedFloor, metrics_server: RunningServer
) -> None:
    options = replace(Options(), plan=TINY, postgraphile=False, message_sizes=(1, 3))
    load = asyncio.run(prepare(server.backend, server.database_url, options))

    assert len(load.issue_ids["bench-test-main"]) == 28  # the 2 long threads are apart
    assert len(load.long_thread_ids) == 2
    assert len(load.writable_issue_ids) == 5
    scenarios = scenarios_for(load, options)
    keys = {s.key for s in scenarios}
    assert {"issue", "issues", "createIssue", "replyToIssue", "apiInfo", "articleSearch"} <= keys
    assert {"messages-1", "messages-3", "workspace-10", "workspace-30", "issue-metrics"} <= keys

    # Raises when a server answers with an error, or when the floor's reads differ from ours.
    urls = {"ours": server.base_url, "floor": floor.url, "ours+metrics": metrics_server.base_url}
    verify(urls, scenarios)
    assert "supportdesk_http_requests_total" in httpx.get(f"{metrics_server.base_url}/metrics").text


def test_seeding_again_reuses_what_is_there(server: RunningServer) -> None:
    options = replace(Options(), plan=TINY, postgraphile=False)
    first = asyncio.run(prepare(server.backend, server.database_url, options))
    again = asyncio.run(prepare(server.backend, server.database_url, options))

    assert again.workspace_ids["bench-test-main"] == first.workspace_ids["bench-test-main"]
    assert again.issue_ids == first.issue_ids
    # The writes workspace is made anew each run, so the write scenarios never pile up.
    assert again.workspace_ids["bench-test-writes"] != first.workspace_ids["bench-test-writes"]


def _measurement(server: str, round_: int, rps: float, cpu: float) -> Measurement:
    return Measurement(
        server, "issue", round_, int(rps), 1.0, rps, 1.0, 2.0, 0, cpu, None, "sqlite"
    )


def test_the_report_pairs_runs_by_round_and_takes_medians() -> None:
    measurements = [
        _measurement("ours", 0, 100, 900),
        _measurement("floor", 0, 400, 200),
        _measurement("ours", 1, 300, 800),
        _measurement("floor", 1, 600, 250),
        _measurement("ours", 2, 200, 1000),
        _measurement("floor", 2, 1000, 210),
    ]

    summary = report.summarise(measurements)["sqlite"]["issue"]

    assert summary["ours"]["rps"] == 200
    assert summary["ours"]["cpu_us_per_request"] == 900
    assert summary["ours"]["vs_floor"] == pytest.approx(0.25)  # median of 0.25, 0.5, 0.2
    assert summary["floor"]["vs_floor"] == 1
    table = report.table({"summary": {"sqlite": {"issue": summary}}, "growth": {}})
    assert "0.25×" in table


def test_the_report_says_what_metrics_cost() -> None:
    measurements = [
        replace(_measurement("ours", 0, 1000, 1000), scenario="issue-metrics"),
        replace(_measurement("ours+metrics", 0, 980, 1020), scenario="issue-metrics"),
    ]

    result = {"summary": report.summarise(measurements), "growth": {}}
    result["metrics_cost"] = report.metrics_cost(result["summary"])

    assert result["metrics_cost"]["sqlite"]["throughput_ratio"] == pytest.approx(0.98)
    assert result["metrics_cost"]["sqlite"]["cpu_ratio"] == pytest.approx(1.02)
    assert "/metrics on vs off: throughput 0.98×, CPU per request 1.02×" in report.table(result)


def test_each_round_starts_the_growth_curves_from_another_point() -> None:
    scenarios = [
        Scenario("issue", "issue", "operations"),
        Scenario("apiInfo", "apiInfo", "operations"),
        Scenario("workspace-1k", "1k", "workspaces"),
        Scenario("workspace-10k", "10k", "workspaces"),
        Scenario("workspace-100k", "100k", "workspaces"),
    ]

    rounds = [[s.key for s in in_turn(scenarios, round_)] for round_ in range(3)]

    assert all(keys[:2] == ["issue", "apiInfo"] for keys in rounds)
    assert [keys[2] for keys in rounds] == ["workspace-1k", "workspace-10k", "workspace-100k"]
    assert all(sorted(keys) == sorted(rounds[0]) for keys in rounds)


def test_the_instruction_counts_driver_answers_every_request(
    server: RunningServer, tmp_path: Path
) -> None:
    """What callgrind runs (`python -m bench.instructions FILE N`), here without valgrind."""
    options = replace(Options(), plan=TINY, postgraphile=False)
    load = asyncio.run(prepare(server.backend, server.database_url, options))
    for scenario in scenarios_for(load, options):
        if scenario.key not in ("issue", "createIssue"):
            continue
        ours = scenario.servers["ours"]
        spec = tmp_path / f"{scenario.key}.json"
        spec.write_text(
            json.dumps(
                {
                    "url": server.database_url,
                    "headers": [(k.lower(), v) for k, v in ours.headers.items()],
                    "bodies": [body.decode() for body in ours.bodies],
                }
            )
        )

        finished = subprocess.run(
            [sys.executable, "-m", "bench.instructions", str(spec), "3"],
            cwd=ROOT,
            env={**os.environ, **bench_env()},
            capture_output=True,
            text=True,
            timeout=120,
        )

        assert finished.returncode == 0, finished.stderr[-2000:]
