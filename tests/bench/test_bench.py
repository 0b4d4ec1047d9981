"""The benchmark's own code must not rot: seed a tiny workspace into the test database,
serve the floor beside the test server, and send every scenario once to both (no wrk);
the webhook figures against a server that delivers, on a database of its own."""

from __future__ import annotations

import asyncio
import json
import os
import re
import smtplib
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import httpx
import pytest
import uvicorn
from bench import compare, inbound, inbox, mail, outbound, report, webhooks
from bench.compare import Run
from bench.floor import FloorApp
from bench.load import Measurement
from bench.run import Options, in_turn, prepare, scenarios_for, verify
from bench.scenarios import WITH_ENDPOINT, Scenario
from bench.seed import Plan, WorkspaceSpec, fetch
from bench.servers import ROOT, bench_env, receiver

from supportdesk.auth.secret_box import new_server_key
from supportdesk.auth.server_key import ServerKey
from supportdesk.smtp.listener import SmtpListener
from tests.conftest import BACKENDS
from tests.servers import IN_CI, RunningServer, create_postgres_database, drop_postgres_database

MAIN = WorkspaceSpec("bench-test-main", 30, messages_per_issue=3, long_threads=2, articles=20)
TINY = Plan(
    main=MAIN,
    writes=WorkspaceSpec("bench-test-writes", 5, messages_per_issue=2),
    sizes=(WorkspaceSpec("bench-test-small", 10, messages_per_issue=3), MAIN),
    hooks=(
        WorkspaceSpec("bench-test-hooks-none", 3, messages_per_issue=1),
        WorkspaceSpec("bench-test-hooks-one", 3, messages_per_issue=1),
    ),
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
    assert {"events", "machineUsers"} <= keys
    assert {"messages-1", "messages-3", "workspace-10", "workspace-30", "issue-metrics"} <= keys
    assert {"search-10", "search-30"} <= keys
    assert "createIssue-webhook" in keys

    # Raises when a server answers with an error, or when the floor's reads differ from ours.
    urls = {
        "ours": server.base_url,
        "floor": floor.url,
        "ours+metrics": metrics_server.base_url,
        WITH_ENDPOINT: server.base_url,  # the same server, the workspace with an endpoint
    }
    verify(urls, scenarios)
    assert "supportdesk_http_requests_total" in httpx.get(f"{metrics_server.base_url}/metrics").text

    # The inbox's page, logged in as the bench member, beside its GraphQL twin.
    cookies = {name: inbox.log_in(server.base_url, name) for name in load.inbox_members}
    pages = inbox.scenarios(load, cookies, [("bench-test-small", "10"), ("bench-test-main", "30")])
    assert [s.key for s in pages] == [
        "inbox-queue",
        "inbox-queue-10",
        "inbox-queue-30",
        "inbox-issue",
    ]
    verify({**urls, inbox.GRAPHQL: server.base_url}, pages)
    mine = inbox.verify_page(server.base_url, pages[0].servers["ours"])
    twin = pages[0].servers[inbox.GRAPHQL].bodies[0]
    answer = httpx.post(
        f"{server.base_url}/graphql", content=twin, headers=pages[0].servers[inbox.GRAPHQL].headers
    ).json()["data"]
    assert mine == len(answer["mine"]["edges"]) > 0


def test_seeding_again_reuses_what_is_there(server: RunningServer) -> None:
    options = replace(Options(), plan=TINY, postgraphile=False)
    first = asyncio.run(prepare(server.backend, server.database_url, options))
    again = asyncio.run(prepare(server.backend, server.database_url, options))

    assert again.workspace_ids["bench-test-main"] == first.workspace_ids["bench-test-main"]
    assert again.issue_ids == first.issue_ids
    # The writes workspace is made anew each run, so the write scenarios never pile up.
    assert again.workspace_ids["bench-test-writes"] != first.workspace_ids["bench-test-writes"]
    for name in ("bench-test-hooks-none", "bench-test-hooks-one"):
        assert again.workspace_ids[name] != first.workspace_ids[name]


def test_the_inbox_issue_page_is_measured_beside_the_graphql_read_of_its_data(
    server: RunningServer,
) -> None:
    options = replace(Options(), plan=TINY, postgraphile=False, only=("inbox-issue",))
    load = asyncio.run(prepare(server.backend, server.database_url, options))
    main = load.main_workspace

    scenario = inbox.issue_page(load, inbox.log_in(server.base_url, main))

    page, graphql = scenario.servers["ours"], scenario.servers[inbox.GRAPHQL]
    assert len(page.bodies) == len(graphql.bodies) == len(load.issue_ids[main]) == 28
    assert page.method == "GET" and page.bodies[0].startswith(b"/inbox/issues/")
    assert "Content-Type" not in page.headers and "session" in page.headers["Cookie"]
    verify({"ours": server.base_url, inbox.GRAPHQL: server.base_url}, [scenario])
    # The last issue's page and its GraphQL twin show the same thread of 3 messages.
    shown = httpx.get(server.base_url + page.bodies[-1].decode(), headers=page.headers)
    read = httpx.post(
        f"{server.base_url}/graphql", content=graphql.bodies[-1], headers=graphql.headers
    ).json()["data"]["issueByNumber"]
    assert shown.status_code == 200 and shown.text.count('class="msg ') == 3
    assert page.bodies[-1].decode() == f"/inbox/issues/{read['ticketNumber']}"
    assert [e["node"]["id"] for e in read["messages"]["edges"]] == _thread_ids(shown.text)


def _thread_ids(page: str) -> list[str]:
    """The ids of the thread's messages, in the order the page shows them."""
    return re.findall(r'<li id="([^"]+)" class="msg ', page)


def test_the_report_compares_the_inbox_issue_page_with_its_graphql_twin() -> None:
    measurements = [
        replace(_measurement("ours", 0, 90, 1200), scenario="inbox-issue"),
        replace(_measurement("ours+graphql", 0, 100, 1000), scenario="inbox-issue"),
    ]

    result = {"summary": report.summarise(measurements), "growth": {}}
    result["inbox"] = report.inbox_checks(result["summary"])

    assert result["inbox"]["sqlite"]["issue_page_vs_graphql_cpu"] == pytest.approx(1.2)
    assert result["inbox"]["sqlite"]["issue_page_meets_target"]
    assert (
        "inbox issue page vs its GraphQL request: server CPU per request 1.20× "
        "(meets the 1.5× target)" in report.table(result)
    )
    assert "ours+graphql" in report.table(result)


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


def test_the_report_compares_the_search_in_the_largest_workspace_with_the_smallest() -> None:
    def search(size: str, p50: float, rps: float, cpu: float) -> Measurement:
        taken = _measurement("ours", 0, rps, cpu)
        return replace(taken, scenario=f"search-{size}", p50_ms=p50)

    measurements = [search("1k", 2.0, 500, 1000), search("100k", 3.0, 400, 1250)]
    result = {"summary": report.summarise(measurements), "growth": {}}
    result["search_growth"] = report.search_growth(result["summary"])

    check = result["search_growth"]["sqlite"]
    assert check["p50_ratio"] == pytest.approx(1.5)
    assert check["cpu_ratio"] == pytest.approx(1.25)
    assert check["meets_target"] is True
    assert "search-100k vs search-1k: median time 1.50× (meets the 2× target)" in report.table(
        result
    )


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


# ---------------------------------------------------------------------------- webhooks


@pytest.fixture(params=BACKENDS)
def delivering(request: pytest.FixtureRequest) -> Iterator[RunningServer]:
    """A server that delivers webhooks, on a database of its own (its dispatcher takes the
    due deliveries of every workspace, so it must not share the suite's database)."""
    with tempfile.TemporaryDirectory(prefix="supportdesk-bench-hooks-") as folder:
        if request.param == "sqlite":
            url = f"sqlite+aiosqlite:///{Path(folder) / 'hooks.db'}"
        else:
            try:
                url = create_postgres_database()
            except Exception as error:
                if IN_CI:
                    pytest.fail(f"PostgreSQL is required in CI and was not reachable: {error}")
                pytest.skip(f"PostgreSQL not reachable ({error})")
        running = RunningServer(
            request.param,
            url,
            webhook_dispatch=True,
            webhook_allow_private=True,
            secret_key=new_server_key(),
            failed_auth_per_minute=1_000_000,
        ).start()
        try:
            yield running
        finally:
            running.stop()
            if request.param != "sqlite":
                drop_postgres_database(url)


class _NoCpu:
    def cpu_seconds(self) -> float:
        return 0.0


def test_the_webhook_figures_count_every_delivery_and_time_each_first_attempt(
    delivering: RunningServer, tmp_path: Path
) -> None:
    options = replace(Options(), plan=TINY, postgraphile=False)
    load = asyncio.run(prepare(delivering.backend, delivering.database_url, options))
    assert load.hook_workspaces is not None
    without, with_one = load.hook_workspaces
    scenario = next(s for s in scenarios_for(load, options) if s.key == webhooks.SCENARIO)
    requests = scenario.servers[WITH_ENDPOINT]
    catcher = receiver().start(tmp_path)
    try:
        webhooks.create_endpoint(delivering.base_url, load.bearer(with_one), catcher.url)
        bench = webhooks.WebhookBench(
            delivering.database_url,
            catcher,
            load.workspace_ids[without],
            load.workspace_ids[with_one],
            lambda _name: _NoCpu(),
        )
        # One round with the endpoint as measure() drives it, five createIssue in place of wrk
        # (new requesters: contact.created and issue.created each), and one without it.
        bench.before(scenario, WITH_ENDPOINT)
        for body in requests.bodies[:5]:
            httpx.post(f"{delivering.base_url}/graphql", content=body, headers=requests.headers)
        taken = Measurement(
            WITH_ENDPOINT, scenario.key, 0, 5, 1.0, 5.0, 1.0, 1.0, 0, 0.0, None, "sqlite"
        )
        bench.after(scenario, WITH_ENDPOINT, taken)
        ours = scenario.servers["ours"]
        httpx.post(f"{delivering.base_url}/graphql", content=ours.bodies[0], headers=ours.headers)

        figures = bench.measure_latency("serve", delivering.base_url, requests, 20, 1)
        result = bench.result()
    finally:
        catcher.stop()

    (run,) = bench.runs
    assert run["deliveries"] == run["received"] == 10
    assert run["still_pending"] == 0
    assert figures["requests"] == 20
    assert figures["request_errors"] == 0
    assert figures["events"] == figures["deliveries"] > 0
    assert 0 <= figures["min_ms"] <= figures["p50_ms"] <= figures["p95_ms"] <= figures["max_ms"]
    deliveries = result["deliveries"]
    assert deliveries["all_succeeded"]
    # The endpoint's own webhook_endpoint.created is delivered to it too.
    assert deliveries["total"] == deliveries["succeeded"] == 1 + 10 + figures["deliveries"]
    assert deliveries["received_events"] == deliveries["total"]
    assert deliveries["in_workspace_without_endpoint"] == 0


def test_latency_is_taken_from_each_events_first_attempt() -> None:
    created = "2026-11-23T22:10:51.000Z"
    start = webhooks._epoch(created)
    records = [
        (start + 0.010, "evt_a", created, "issue.created"),
        (start + 0.030, "evt_b", created, "contact.created"),
        (start + 5.500, "evt_a", created, "issue.created"),  # a retry: not the first attempt
    ]

    figures = webhooks.latency_figures(records)

    assert figures["events"] == 2
    assert figures["attempts"] == 3
    assert figures["p50_ms"] == pytest.approx(10, abs=0.01)
    assert figures["max_ms"] == pytest.approx(30, abs=0.01)
    assert webhooks.percentile([float(n) for n in range(1, 101)], 0.95) == 95


def test_the_report_pairs_the_webhook_runs_by_round() -> None:
    def run(server: str, round_: int, rps: float, cpu: float) -> Measurement:
        measured = _measurement(server, round_, rps, cpu)
        return replace(measured, scenario="createIssue-webhook", backend="postgresql")

    measurements = [
        run("ours", 0, 200, 4000),
        run("ours+webhook", 0, 190, 4400),
        run("ours", 1, 100, 4100),  # a slow round for both: the pairing keeps the ratio
        run("ours+webhook", 1, 80, 5000),
        run("ours", 2, 210, 3900),
        run("ours+webhook", 2, 200, 4300),
    ]
    extra_run = {
        "round": 0,
        "requests": 570,
        "deliveries": 855,
        "received": 855,
        "pending_when_load_stopped": 3,
        "drain_seconds": 0.1,
        "still_pending": 0,
        "cpu_us_per_request_with_drain": 4500.0,
        "receiver_cpu_us_per_delivery": 150.0,
    }
    latency = {
        "layout": "serve",
        "rate": 100,
        "seconds": 9,
        "events": 900,
        "p50_ms": 12.0,
        "p95_ms": 40.0,
        "max_ms": 80.0,
    }
    deliveries = {
        "total": 1800,
        "succeeded": 1800,
        "failed": 0,
        "pending": 0,
        "retried": 0,
        "all_succeeded": True,
    }
    extras = {
        "postgresql": {
            "runs": [extra_run],
            "latency": {
                "serve 100/s": latency,
                "dispatch 100/s": {**latency, "layout": "dispatch", "p95_ms": 1200.0},
            },
            "deliveries": deliveries,
        }
    }

    found = report.webhook_cost(measurements, extras)["postgresql"]

    assert found["throughput_ratio"] == pytest.approx(0.95)  # median of 0.95, 0.8, 0.952
    assert found["cpu_ratio"] == pytest.approx(4300 / 3900)  # median of 1.1, 1.22, 1.103
    assert found["deliveries_per_request"] == pytest.approx(1.5)
    assert found["meets_throughput_target"]
    assert not found["meets_latency_target"]  # the dispatch layout's p95 is over 1 s
    lines = "\n".join(report.webhook_lines({"postgresql": found}))
    assert "createIssue with one webhook endpoint vs none: throughput 0.95×" in lines
    assert "(dispatch, 100 createIssue/s for 9 s, 900 events): p50 12 ms, p95 1,200 ms" in lines
    assert "MISSES p95 < 1 s" in lines
    assert "1,800 of 1,800 succeeded" in lines


def test_the_comparison_pairs_each_versions_runs_by_round() -> None:
    def run(version: str, kind: str, round_: int, rps: float, cpu: float, **more: float) -> Run:
        figures = {"main_us": cpu, "other_threads_us": 0.0, "database_us": 1000.0}
        figures.update(more)
        return Run(version, kind, round_, rps, cpu, switches=8.0, deliveries=1.0, **figures)

    runs = [
        run(compare.HERE, "none", 0, 400, 2500),
        run(compare.HERE, "hook", 0, 360, 2800, other_threads_us=200, database_us=1100),
        run(compare.HERE, "none", 1, 200, 5000),  # a slow round for both: the pairing keeps it
        run(compare.HERE, "hook", 1, 170, 5400, other_threads_us=150, database_us=1100),
        run(compare.HERE, "none", 2, 420, 2400),
        run("old", "none", 0, 400, 2500),
        run("old", "hook", 0, 300, 3100, other_threads_us=300, database_us=1200),
    ]

    found = compare.summary(runs)

    assert found[compare.HERE]["ratios"] == [0.9, 0.85]  # round 2 has no pair: left out
    assert found[compare.HERE]["ratio"] == pytest.approx(0.875)
    assert found[compare.HERE]["cpu_us_per_delivery"] == pytest.approx(350)  # median of 300, 400
    assert found[compare.HERE]["other_threads_us_per_delivery"] == pytest.approx(175)
    assert found[compare.HERE]["database_us_per_delivery"] == pytest.approx(100)
    assert found[compare.HERE]["none"]["rps"] == pytest.approx(300)
    assert found["old"]["ratio"] == pytest.approx(0.75)
    assert found["old"]["cpu_us_per_delivery"] == pytest.approx(600)
    lines = compare.report_lines(found)
    assert lines[0].startswith(
        f"{compare.HERE}: createIssue with one endpoint vs none: throughput 0.875x"
    )
    assert "350 µs CPU of serve" in lines[0]


def test_thread_times_split_the_main_thread_from_the_others() -> None:
    stop = threading.Event()
    spinning = threading.Thread(target=lambda: [None for _ in iter(stop.is_set, True)])
    before = compare.thread_times([os.getpid()])
    spinning.start()
    deadline = time.monotonic() + 10  # however busy the machine, the spinner gets its turns
    used = compare.thread_times([os.getpid()]) - before
    while used.others < 0.05 and time.monotonic() < deadline:
        time.sleep(0.02)
        used = compare.thread_times([os.getpid()]) - before  # counted while it runs
    stop.set()
    spinning.join()

    assert used.others >= 0.05  # the spinning thread's CPU, not the main thread's
    assert used.main < used.others


def test_the_commit_compared_is_checked_out_apart_and_removed_after() -> None:
    with compare.worktree("HEAD") as folder:
        assert (folder / "src" / "supportdesk" / "__init__.py").is_file()
        listed = subprocess.run(
            ["git", "worktree", "list"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout
        assert str(folder) in listed
    assert not folder.exists()
    listed = subprocess.run(
        ["git", "worktree", "list"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    assert str(folder) not in listed

    with (
        pytest.raises(SystemExit, match="unknown, or its migrations differ"),
        compare.worktree("no-such-commit"),
    ):
        pass


def test_the_mail_scenario_files_every_message_it_sends(
    server: RunningServer, tmp_path: Path
) -> None:
    figures = inbound.measure(
        server.backend, server.database_url, tmp_path, rounds=1, seconds=1, warmup=0, connections=3
    )

    (run,) = figures["rounds"]
    assert run["failed"] == figures["failed"] == 0
    assert run["messages"] > 0 and run["cpu_us_per_message"] > 0
    # Each message kept and filed: the even ones of a sender open an issue, the odd ones
    # join it by their In-Reply-To; none parked, none taken for a machine's.
    assert set(figures["statuses"]) <= {"created", "appended"}
    assert sum(figures["statuses"].values()) == run["messages"]
    assert figures["statuses"]["created"] - figures["statuses"].get("appended", 0) in (0, 1, 2, 3)
    assert figures["message_bytes"] > 20_000
    (line,) = report.mail_lines({server.backend: figures})
    assert "a second per worker" in line and "REFUSED" not in line


def test_a_reply_of_the_mail_scenario_joins_its_issue_with_its_quote_trimmed(
    server: RunningServer,
) -> None:
    mailbox = asyncio.run(inbound.new_mailbox(server.database_url))
    listener = SmtpListener(server.app.state.mail, "127.0.0.1:0")
    server.call(listener.start())
    try:
        for n in (0, 1):
            raw = mail.message(mailbox.address, 7, n, "trimmed")
            with smtplib.SMTP("127.0.0.1", listener.port, timeout=30) as client:
                client.sendmail("customer7@example.com", [mailbox.address], raw)
    finally:
        server.call(listener.stop())

    rows = asyncio.run(
        fetch(
            server.database_url,
            "SELECT issue_id, body FROM messages WHERE workspace_id = $1 ORDER BY id",
            mailbox.workspace_id,
        )
    )
    assert len(rows) == 2 and rows[0][0] == rows[1][0]  # one issue, two messages
    assert rows[1][1].startswith("Thanks for the quick answer.")
    assert "wrote:" not in rows[1][1] and len(rows[1][1]) < 400


def test_the_reply_mail_scenario_mails_the_replies_of_one_workspace_only(
    server: RunningServer,
) -> None:
    spaces = asyncio.run(outbound.prepare(server.database_url, issues=3))

    for name in ("ours", outbound.WITH_MAIL):
        requests = spaces.requests[name]
        assert len(requests.bodies) == 3
        for body in requests.bodies[:2]:
            answer = httpx.post(
                f"{server.base_url}/graphql", content=body, headers=requests.headers
            ).json()
            assert answer["data"]["replyToIssue"]["error"] is None
    # The test server sends no mail: the two replies' mail waits in the outbox.
    assert asyncio.run(outbound.mail_counts(server.database_url, spaces.with_mail)) == {
        "pending": 2
    }
    assert asyncio.run(outbound.mail_counts(server.database_url, spaces.without_mail)) == {}
