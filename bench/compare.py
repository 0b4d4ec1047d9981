"""`python -m bench compare --against REV [--backend B]`: what one webhook delivery costs in
this checkout and in the commit REV, measured side by side on the backend B (the first
given; SQLite when none is).

Two runs of `make bench` an hour apart differ by more than a change to the dispatcher can
move the figures (this machine's speed drifts by up to 1.7x in a day), so a comparison of
two versions must share the hour: both are served at once, from the same database, and
take turns. REV is checked out into a temporary git worktree and served with its `src`
first on PYTHONPATH; the two must have the same migrations (the database is shared).

Each round runs createIssue into the workspace without an endpoint and into the one whose
endpoint (at the bench's receiver) takes every event, on each version in turn (the order
alternates by round). Per run: requests per second, CPU per request of the serve processes,
split into their main threads and their other threads, and of that the CPU of serve's
dispatcher process (a version that delivers from its workers' event loops has none: its
deliveries are in the workers' main threads), context switches per request, the database's
CPU per request (PostgreSQL), and deliveries per request at the receiver. Every process
`serve` started is counted, its dispatcher included. The figure that matters is paired within
a round: the with-endpoint run's CPU per request minus the run's without, that is the CPU one
delivery costs, of which the median over rounds is reported, beside the median throughput
ratio.

The statistics are refreshed after the warm-up, as in `make bench`: a statement first
planned while the deliveries table was nearly empty would otherwise keep a plan that reads
it whole (autovacuum is off on this machine's PostgreSQL).
"""

from __future__ import annotations

import asyncio
import json
import statistics
import subprocess
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from bench import seed, tools, webhooks
from bench.load import Driver, LoadSettings
from bench.run import Options, prepare
from bench.scenarios import WITH_ENDPOINT, webhook_cost
from bench.seed import QUICK
from bench.servers import ROOT, TICKS, Server, cpu_seconds, ours, receiver, stat_fields

MIGRATIONS = "src/supportdesk/db/migrations"
HERE = "this checkout"  # uncommitted changes included
KINDS = ("none", "hook")
# A run's figures, as Run names them; all but the first are paired per delivery.
FIGURES = (
    "rps",
    "cpu_us",
    "main_us",
    "other_threads_us",
    "dispatcher_us",
    "database_us",
    "switches",
)
# How serve's dispatcher process is named on its command line.
DISPATCHER = b"supportdesk.dispatch.role"


@dataclass(frozen=True)
class ThreadTimes:
    """CPU seconds of the main threads and of the other threads of some processes, and
    their voluntary and involuntary context switches."""

    main: float
    others: float
    voluntary: int
    involuntary: int

    def __sub__(self, earlier: ThreadTimes) -> ThreadTimes:
        return ThreadTimes(
            self.main - earlier.main,
            self.others - earlier.others,
            self.voluntary - earlier.voluntary,
            self.involuntary - earlier.involuntary,
        )


def command_line(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def thread_times(pids: Sequence[int]) -> ThreadTimes:
    """Of the threads running now: one that has ended is no longer counted (a serve
    process's threads last as long as it does)."""
    main = others = 0.0
    voluntary = involuntary = 0
    for pid in pids:
        for task in Path(f"/proc/{pid}/task").glob("*"):
            fields = stat_fields(task / "stat")
            try:
                status = (task / "status").read_text()
            except OSError:
                continue  # the thread ended meanwhile
            if fields is None:
                continue
            used = (int(fields[11]) + int(fields[12])) / TICKS
            if task.name == str(pid):
                main += used
            else:
                others += used
            switches = dict(
                line.split(":\t") for line in status.splitlines() if "ctxt_switches" in line
            )
            voluntary += int(switches["voluntary_ctxt_switches"])
            involuntary += int(switches["nonvoluntary_ctxt_switches"])
    return ThreadTimes(main, others, voluntary, involuntary)


@dataclass(frozen=True)
class Run:
    version: str
    kind: str  # "none": no endpoint; "hook": one endpoint taking every event
    round: int
    rps: float
    cpu_us: float  # per request, the serve processes in all
    main_us: float
    other_threads_us: float
    database_us: float | None
    switches: float  # voluntary and involuntary, per request
    deliveries: float  # at the receiver during the run, per request
    dispatcher_us: float = 0.0  # per request, serve's dispatcher process (part of cpu_us)


def summary(runs: Sequence[Run]) -> dict[str, dict[str, Any]]:
    """Per version: medians of each kind's figures, and the medians of the figures paired
    within a round (the with-endpoint run against the run without)."""
    found: dict[str, dict[str, Any]] = {}
    for version in dict.fromkeys(run.version for run in runs):
        by_round: dict[int, dict[str, Run]] = {}
        for run in runs:
            if run.version == version:
                by_round.setdefault(run.round, {})[run.kind] = run
        pairs = [(kinds["none"], kinds["hook"]) for kinds in by_round.values() if len(kinds) == 2]
        if not pairs:
            continue
        entry: dict[str, Any] = {
            kind: {
                name: round(statistics.median(_figure(pair[index], name) for pair in pairs), 2)
                for name in FIGURES
            }
            for index, kind in enumerate(KINDS)
        }
        entry["ratios"] = [round(hook.rps / none.rps, 3) for none, hook in pairs]
        entry["ratio"] = round(statistics.median(entry["ratios"]), 3)
        for name in FIGURES[1:]:
            entry[f"{name}_per_delivery"] = round(
                statistics.median(
                    (_figure(hook, name) - _figure(none, name)) / max(hook.deliveries, 1e-9)
                    for none, hook in pairs
                ),
                2,
            )
        found[version] = entry
    return found


def _figure(run: Run, name: str) -> float:
    value: float | None = getattr(run, name)
    return value or 0.0


def report_lines(found: dict[str, dict[str, Any]]) -> list[str]:
    lines = []
    for version, entry in found.items():
        lines.append(
            f"{version}: createIssue with one endpoint vs none: throughput {entry['ratio']}x "
            f"(rounds {', '.join(str(r) for r in entry['ratios'])}); per delivery: "
            f"{entry['cpu_us_per_delivery']:,.0f} µs CPU of serve (main threads "
            f"{entry['main_us_per_delivery']:,.0f}, other threads "
            f"{entry['other_threads_us_per_delivery']:,.0f}; dispatcher process "
            f"{entry['dispatcher_us_per_delivery']:,.0f}), "
            + (
                f"{entry['database_us_per_delivery']:,.0f} µs of PostgreSQL, "
                if entry["hook"]["database_us"]
                else ""
            )
            + f"{entry['switches_per_delivery']:.2f} context switches"
        )
    return lines


@contextmanager
def worktree(revision: str) -> Iterator[Path]:
    """REV checked out in a temporary folder, removed afterwards."""
    changed = subprocess.run(["git", "diff", "--quiet", revision, "--", MIGRATIONS], cwd=ROOT)
    if changed.returncode:
        raise SystemExit(f"{revision} is unknown, or its migrations differ from this checkout's")
    folder = Path(tempfile.mkdtemp(prefix="supportdesk-compare-"))
    subprocess.run(
        ["git", "worktree", "add", "--detach", str(folder), revision],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    try:
        yield folder
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(folder)], cwd=ROOT)


def compare(options: Options, against: str) -> dict[str, dict[str, Any]]:
    backend = options.backends[0] if options.backends else "postgresql"
    url = options.database_url(backend)
    options = replace(options, plan=QUICK)
    load = asyncio.run(prepare(backend, url, options))
    if load.hook_workspaces is None:
        raise SystemExit("the bench's workload has no webhook workspaces")
    hooked = load.bearer(load.hook_workspaces[1])
    [scenario] = webhook_cost(load)
    requests = {"none": scenario.servers["ours"], "hook": scenario.servers[WITH_ENDPOINT]}
    logs = options.output / "logs" / "compare"
    driver = Driver(
        LoadSettings(tools.ensure_wrk(), options.seconds, options.connections),
        count_postgres=backend == "postgresql",
    )
    with worktree(against) as folder:
        servers: dict[str, Server] = {}
        hooks = receiver().start(logs)
        try:
            servers[HERE] = ours(url, options.workers, name="ours-here").start(logs)
            other = ours(url, options.workers, name=f"ours-{against}")
            other.env["PYTHONPATH"] = str(folder / "src")
            servers[against] = other.start(logs)
            webhooks.create_endpoint(servers[HERE].url, hooked, hooks.url)
            for server in servers.values():
                for kind in KINDS:
                    driver.run(server, kind, requests[kind], -1, options.warmup)
            asyncio.run(seed.refresh_statistics(url))
            runs = _rounds(driver, servers, requests, hooks, options.rounds)
        finally:
            for server in servers.values():
                server.stop()
            hooks.stop()
    found = summary(runs)
    print("\n" + "\n".join(report_lines(found)))
    output = options.output / f"compare-{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}.json"
    output.write_text(
        json.dumps(
            {"backend": backend, "summary": found, "runs": [asdict(r) for r in runs]}, indent=2
        )
    )
    print(f"JSON  {output}")
    return found


def _rounds(
    driver: Driver,
    servers: dict[str, Server],
    requests: dict[str, Any],
    hooks: Server,
    rounds: int,
) -> list[Run]:
    runs = []
    versions = list(servers)
    for round_ in range(rounds):
        for version in versions if round_ % 2 == 0 else versions[::-1]:
            for kind in KINDS:
                server = servers[version]
                pids = server.pids()
                dispatchers = [pid for pid in pids if DISPATCHER in command_line(pid)]
                received = webhooks.receiver_count(hooks)
                before = thread_times(pids)
                dispatched = cpu_seconds(dispatchers)
                taken = driver.run(server, kind, requests[kind], round_)
                used = thread_times(pids) - before
                dispatched = cpu_seconds(dispatchers) - dispatched
                count = max(1, taken.requests)
                run = Run(
                    version,
                    kind,
                    round_,
                    taken.rps,
                    taken.cpu_us_per_request,
                    used.main * 1e6 / count,
                    used.others * 1e6 / count,
                    taken.db_cpu_us_per_request,
                    (used.voluntary + used.involuntary) / count,
                    (webhooks.receiver_count(hooks) - received) / count,
                    dispatched * 1e6 / count,
                )
                runs.append(run)
                print(
                    f"  [{round_ + 1}/{rounds}] {version} {kind}: {run.rps:,.0f}/s, "
                    f"{run.cpu_us:,.0f} µs CPU per request (main {run.main_us:,.0f}, "
                    f"other threads {run.other_threads_us:,.0f}; dispatcher process "
                    f"{run.dispatcher_us:,.0f}), "
                    f"{run.deliveries:.2f} deliveries per request",
                    flush=True,
                )
    return runs
