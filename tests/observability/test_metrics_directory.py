"""Where the workers' metrics live: `serve --workers N` makes a directory for its run and names
it to the workers; a worker that dies stops counting in the live gauges while its counters
stay; the directory is gone once `serve` stops. One process (`--workers 1` without a
dispatcher) keeps them in memory and serves its metrics port itself."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import httpx
import pytest

from supportdesk.db import Database
from tests.observability.scrape import scrape, wait_for
from tests.processes import ServeProcess, command_env, free_port, run_cli

pytestmark = pytest.mark.processes


POOL_SIZE = 3
LIMIT = "supportdesk_db_pool_max_connections"
# Each worker's reader pool, as its gauge states it.
READERS = Database.limits_of("sqlite:///x.db", POOL_SIZE)["reader"]


def environment_of(pid: int) -> dict[str, str]:
    entries = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(entry.decode().split("=", 1) for entry in entries if b"=" in entry)


def test_a_dead_workers_gauges_go_and_the_directory_goes_with_serve(tmp_path: Path) -> None:
    env = command_env(database_url=f"sqlite:///{tmp_path}/served.db", db_pool_size=str(POOL_SIZE))
    run_cli(env, "migrate")
    port = free_port()
    metrics_url = f"http://127.0.0.1:{port}/metrics"
    serve = ServeProcess(env, 2, ("--metrics-port", str(port))).start()
    try:
        serve.wait_ready()
        pids = wait_for(serve.worker_pids, lambda found: len(found) == 2)
        directory = Path(environment_of(pids[0])["PROMETHEUS_MULTIPROC_DIR"])
        both = wait_for(
            lambda: scrape(metrics_url), lambda s: s.total(LIMIT, pool="reader") == 2 * READERS
        )
        assert both.total(LIMIT, pool="reader") == 2 * READERS  # both apps are built
        with httpx.Client(limits=httpx.Limits(max_keepalive_connections=0)) as fresh:
            for _ in range(20):  # a new connection each: both workers count some
                fresh.get(f"{serve.base_url}/healthz")
        counted = [p for p in pids if (directory / f"counter_{p}.db").exists()]
        first, second = counted[0], next(p for p in pids if p != counted[0])

        os.kill(first, signal.SIGKILL)

        def replaced() -> list[int]:
            return [
                p for p in serve.worker_pids() if (directory / f"gauge_livesum_{p}.db").exists()
            ]

        workers = wait_for(replaced, lambda pids: len(pids) == 2 and first not in pids)
        assert second in workers and first not in workers
        assert not (directory / f"gauge_livesum_{first}.db").exists()
        assert (directory / f"counter_{first}.db").exists()  # what it counted still counts
        # The dead worker's pools no longer count; its replacement's do.
        after = wait_for(
            lambda: scrape(metrics_url), lambda s: s.total(LIMIT, pool="reader") == 2 * READERS
        )
        assert after.total(LIMIT, pool="reader") == 2 * READERS
    finally:
        serve.stop()
    assert not directory.exists()


def test_one_worker_serves_its_metrics_port_from_memory(tmp_path: Path) -> None:
    # Without a dispatcher process: one process then serves everything.
    env = command_env(database_url=f"sqlite:///{tmp_path}/served.db", webhook_dispatch="false")
    run_cli(env, "migrate")
    port = free_port()
    serve = ServeProcess(env, 1, ("--metrics-port", str(port))).start()
    try:
        serve.wait_ready()

        found = wait_for(
            lambda: scrape(f"http://127.0.0.1:{port}/metrics"),
            lambda s: s.total("supportdesk_http_requests_total", handler="health") > 0,
        )

        assert found.total("supportdesk_http_requests_total", handler="health", status="200") >= 1
        assert "PROMETHEUS_MULTIPROC_DIR" not in environment_of(serve.pid)
        assert "process_cpu_seconds_total" in found.text  # this process's own registry
    finally:
        serve.stop()
