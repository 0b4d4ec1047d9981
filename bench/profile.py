"""`python -m bench profile`: where our server's CPU goes, per scenario, on PostgreSQL (or
on the first `--backend` given).

py-spy records the running server (one worker without a dispatcher process, so one process
to sample) while wrk drives one scenario; the collapsed stacks are then summed by package
(self time) and by function (inclusive time). Raw stacks are kept under bench/results/ for a
flame graph (`py-spy` writes an SVG next to them). `createIssue-webhook` is createIssue into
a workspace whose endpoint (at the bench's receiver) takes every event type, so the cost of
queueing its deliveries in the mutation is in the profile; `supportdesk-dispatch` profiles
`supportdesk dispatch` delivering what a serve without a dispatcher commits at 100
createIssue a second (the dispatcher process `serve` starts is the same). `--only` picks
some of them.
"""

from __future__ import annotations

import asyncio
import re
import shutil
import subprocess
import sys
import threading
from collections import Counter
from dataclasses import replace
from pathlib import Path

from bench import tools, webhooks
from bench.load import Driver, LoadSettings, Measurement
from bench.run import Options, prepare
from bench.scenarios import WITH_ENDPOINT, Requests, operations, webhook_cost
from bench.seed import QUICK
from bench.servers import Server, dispatcher, ours, receiver

# createIssue into the workspace with an endpoint, served with the dispatcher off, while
# `supportdesk dispatch` delivers alone: the profile is of the dispatch process.
DISPATCH = "supportdesk-dispatch"
DISPATCH_RATE = 100.0
BACKEND_NAMES = {"postgresql": "PostgreSQL", "sqlite": "SQLite"}
SCENARIOS = ("issue", "createIssue", webhooks.SCENARIO, DISPATCH)
FRAME = re.compile(r"^(?P<function>.*) \((?P<file>[^()]*)(?::\d+)?\)$")
PACKAGES = (
    ("supportdesk", "/supportdesk/"),
    ("graphql-core", "/graphql/"),
    ("strawberry", "/strawberry/"),
    ("sqlalchemy", "/sqlalchemy/"),
    ("asyncpg", "/asyncpg/"),
    ("uvicorn", "/uvicorn/"),
    ("starlette", "/starlette/"),
    ("asyncio", "/asyncio/"),
    ("uvloop", "/uvloop/"),
    ("orjson", "/orjson/"),
)


def package_of(path: str) -> str:
    path = "/" + path
    for name, marker in PACKAGES:
        if marker in path:
            return name
    return "other"


def _frames(line: str) -> tuple[list[tuple[str, str]], int]:
    stack, _, count = line.rpartition(" ")
    frames = []
    for raw in stack.split(";"):
        match = FRAME.match(raw)
        if match:
            frames.append((match["function"], match["file"]))
    return frames, int(count)


# Where a request's time goes, by the functions that enclose each part (inclusive time):
# answering the request, and the webhook dispatcher's work in its own process.
PARTS = (
    ("answering GraphQL requests", "GraphQLEndpoint.__call__", "/http/graphql_endpoint.py"),
    ("  recording events (in the mutation)", "record_events", "/domain/events/log.py"),
    ("    queueing deliveries", "_queue_deliveries", "/domain/events/log.py"),
    ("dispatcher: looking for and leasing work", "Dispatcher._take_batch", "/dispatch/"),
    ("dispatcher: attempts", "Dispatcher._attempt", "/dispatch/"),
    ("  signing", "signed_headers", "/dispatch/signing.py"),
    ("  the POST (aiohttp)", "Client.post", "/dispatch/client.py"),
    ("dispatcher: writing outcomes", "write_outcomes", "/dispatch/outcomes.py"),
)


def parts(raw: Path) -> list[tuple[str, float]]:
    """Each of PARTS's share of the samples (inclusive), the parts that were seen."""
    found: Counter[str] = Counter()
    total = 0
    for line in raw.read_text().splitlines():
        if not line.strip():
            continue
        frames, count = _frames(line)
        total += count
        for label, function, path in PARTS:
            if any(f == function and path in "/" + file for f, file in frames):
                found[label] += count
    return [(label, found[label] / total) for label, _, _ in PARTS if total and found[label]]


def summarise(raw: Path, top: int = 20) -> str:
    self_by_package: Counter[str] = Counter()
    self_by_function: Counter[str] = Counter()
    inclusive: Counter[str] = Counter()
    total = 0
    for line in raw.read_text().splitlines():
        if not line.strip():
            continue
        frames, count = _frames(line)
        if not frames:
            continue
        total += count
        self_by_package[package_of(frames[-1][1])] += count
        self_by_function[f"{frames[-1][0]} ({frames[-1][1]})"] += count
        seen = set()
        for function, path in frames:
            name = f"{function} ({path})"
            if name not in seen:
                inclusive[name] += count
                seen.add(name)
    lines = [f"{total} samples", "self time by package:"]
    for name, count in self_by_package.most_common():
        lines.append(f"  {100 * count / total:5.1f}%  {name}")
    lines.append(f"self time, top {top} functions:")
    for name, count in self_by_function.most_common(top):
        lines.append(f"  {100 * count / total:5.1f}%  {name}")
    lines.append(f"inclusive time, top {top} functions (below 90%):")
    shown = 0
    for name, count in inclusive.most_common():
        if count / total < 0.9 and shown < top:
            lines.append(f"  {100 * count / total:5.1f}%  {name}")
            shown += 1
    return "\n".join(lines)


def _while_recording(
    recorder: subprocess.Popen[bytes],
    driver: Driver,
    server: Server,
    key: str,
    requests: Requests,
    seconds: int,
) -> Measurement:
    """Drive the server with wrk until py-spy has finished recording."""
    measured: list[Measurement] = []
    load = threading.Thread(target=lambda: measured.append(driver.run(server, key, requests, 0)))
    load.start()
    recorder.wait(timeout=seconds + 60)
    load.join()
    return measured[0]


def _record(py_spy: str, pid: int, seconds: int, raw: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [
            *(py_spy, "record", "--pid", str(pid)),
            *("--duration", str(seconds), "--rate", "250", "--function"),
            *("--nonblocking", "--format", "raw", "--output", str(raw)),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def _report(folder: Path, key: str, heading: str, raw: Path, cpu_us: float, unit: str) -> None:
    summary = summarise(raw)
    shares = parts(raw)
    if shares:
        summary += f"\nwhere the CPU goes (inclusive share, and µs per {unit}):\n"
        summary += "\n".join(
            f"  {100 * share:5.1f}%  {share * cpu_us:7,.0f} µs  {label}" for label, share in shares
        )
    print(f"\n== {heading}\n{summary}")
    (folder / f"profile-{key}-summary.txt").write_text(f"{heading}\n{summary}\n")


def profile(options: Options, seconds: int) -> None:
    py_spy = shutil.which("py-spy", path=str(Path(sys.executable).parent)) or shutil.which("py-spy")
    if py_spy is None:
        raise SystemExit("py-spy is missing: pip install -e '.[bench]'")
    backend = options.backends[0] if options.backends else "postgresql"
    url = options.database_url(backend)
    options = replace(options, plan=QUICK)  # the profile needs no 100k-issue workspace
    load = asyncio.run(prepare(backend, url, options))
    found = {s.key: s.servers["ours"] for s in operations(load, postgraphile=False)}
    for scenario in webhook_cost(load):
        found[scenario.key] = found[DISPATCH] = scenario.servers[WITH_ENDPOINT]
    keys = [key for key in SCENARIOS if key in found and options.wants(key)]
    folder = options.output
    logs = folder / "logs" / "profile"
    server = ours(url, workers=1, dispatch=False).start(logs)
    hooks: Server | None = None
    try:
        if load.hook_workspaces and {webhooks.SCENARIO, DISPATCH} & set(keys):
            hooks = receiver().start(logs)
            authorization = load.bearer(load.hook_workspaces[1])
            webhooks.create_endpoint(server.url, authorization, hooks.url)
        driver = Driver(LoadSettings(tools.ensure_wrk(), seconds + 2, options.connections), False)
        for key in keys:
            if key == DISPATCH:
                continue  # below, once this server has stopped
            requests = found[key]
            driver.run(server, key, requests, -1, 2)  # warm the caches first
            raw = folder / f"profile-{key}.txt"
            recorder = _record(py_spy, server.pids()[0], seconds, raw)
            figures = _while_recording(recorder, driver, server, key, requests, seconds)
            heading = (
                f"profile of {key} (ours, {BACKEND_NAMES[backend]}, 1 worker): {figures.rps:,.0f} req/s, "
                f"{figures.cpu_us_per_request:,.0f} µs CPU per request (py-spy attached)"
            )
            _report(folder, key, heading, raw, figures.cpu_us_per_request, "request")
        server.stop()
        if DISPATCH in keys and hooks is not None and load.hook_workspaces:
            workspace = load.workspace_ids[load.hook_workspaces[1]]
            _profile_dispatch(py_spy, url, workspace, found[DISPATCH], folder, seconds, backend)
    finally:
        server.stop()
        if hooks is not None:
            hooks.stop()


def _profile_dispatch(
    py_spy: str,
    url: str,
    workspace_id: str,
    requests: Requests,
    folder: Path,
    seconds: int,
    backend: str,
) -> None:
    """`supportdesk dispatch` alone delivering what a serve without a dispatcher commits, at
    DISPATCH_RATE createIssue a second: the attempts' cost without requests beside them."""
    logs = folder / "logs" / "profile"
    quiet = ours(url, workers=1, dispatch=False, name="ours-no-dispatch").start(logs)
    alone = dispatcher(url).start(logs)
    try:
        webhooks.steady_load(quiet.url, requests, DISPATCH_RATE, 2)  # warm up
        webhooks.drain(url, workspace_id)
        before = webhooks.delivery_counts(url, workspace_id)["total"]
        raw = folder / f"profile-{DISPATCH}.txt"
        recorder = _record(py_spy, alone.pids()[0], seconds, raw)
        cpu_before = alone.cpu_seconds()
        webhooks.steady_load(quiet.url, requests, DISPATCH_RATE, seconds)
        recorder.wait(timeout=seconds + 60)
        webhooks.drain(url, workspace_id)
        made = webhooks.delivery_counts(url, workspace_id)["total"] - before
        cpu_us = (alone.cpu_seconds() - cpu_before) * 1e6 / max(1, made)
        heading = (
            f"profile of supportdesk dispatch ({BACKEND_NAMES[backend]}), {made:,} deliveries at "
            f"{DISPATCH_RATE:g} createIssue/s: {cpu_us:,.0f} µs CPU per delivery (py-spy attached)"
        )
        _report(folder, DISPATCH, heading, raw, cpu_us, "delivery")
    finally:
        alone.stop()
        quiet.stop()
