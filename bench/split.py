"""`python -m bench split`: what one subscribed endpoint costs createIssue, process by process.

The same createIssue load (wrk, as the bench runs it) into a workspace without an endpoint
and into one whose endpoint takes every event type, in alternating rounds, twice: with the
serve processes delivering (the default), then with their dispatcher off
(`SUPPORTDESK_WEBHOOK_DISPATCH=false`: the mutation queues its deliveries and nothing sends
them). For each run, CPU per request in user and kernel time of the serve processes, of
PostgreSQL (all its processes) and of the receiver. The difference between the two layouts
is what sending costs; the second layout's own difference is what queueing costs the
mutation. After a delivering run the bench waits until nothing is pending, so each run pays
for its own deliveries and no more. Each `--backend` in turn (both by default); the
deliveries the second layout leaves pending go with the workspace, made anew by the next run.
"""

from __future__ import annotations

import asyncio
import statistics
from dataclasses import replace

from bench import seed, tools, webhooks
from bench.load import Driver, LoadSettings
from bench.run import Options, prepare
from bench.scenarios import Requests, create_issue_requests
from bench.seed import QUICK
from bench.servers import Server, ours, postgres_pids, receiver, user_and_system_seconds

WARMUP_SECONDS = 8
LAYOUTS = (("serve delivers", True), ("serve only queues", False))
Usage = dict[str, tuple[float, float]]  # process group -> (user, system) seconds


def _usage(server: Server, hooks: Server, database: bool) -> Usage:
    groups = {"serve": server.pids(), "receiver": hooks.pids()}
    if database:
        groups["PostgreSQL"] = postgres_pids()
    return {name: user_and_system_seconds(pids) for name, pids in groups.items()}


def _per_request(before: Usage, after: Usage, requests: int) -> Usage:
    return {
        name: (
            (after[name][0] - before[name][0]) * 1e6 / requests,
            (after[name][1] - before[name][1]) * 1e6 / requests,
        )
        for name in before
    }


def split(options: Options) -> None:
    for backend in options.backends:
        split_backend(backend, options)


def split_backend(backend: str, options: Options) -> None:
    url = options.database_url(backend)
    options = replace(options, plan=QUICK)
    load = asyncio.run(prepare(backend, url, options))
    assert load.hook_workspaces is not None
    without, with_endpoint = load.hook_workspaces
    requests = {
        "no endpoint": create_issue_requests(load, without),
        "one endpoint": create_issue_requests(load, with_endpoint),
    }
    hooked = load.workspace_ids[with_endpoint]
    logs = options.output / "logs" / "split"
    hooks = receiver().start(logs)
    driver = Driver(LoadSettings(tools.ensure_wrk(), options.seconds, options.connections), False)
    try:
        for number, (layout, dispatch) in enumerate(LAYOUTS):
            server = ours(url, options.workers, dispatch=dispatch).start(logs)
            try:
                if number == 0:
                    webhooks.create_endpoint(server.url, load.bearer(with_endpoint), hooks.url)
                for name in requests:
                    driver.run(server, name, requests[name], -1, WARMUP_SECONDS)
                if dispatch:
                    webhooks.drain(url, hooked)
                asyncio.run(seed.refresh_statistics(url))
                _rounds(layout, backend, server, hooks, driver, requests, options, url, hooked)
            finally:
                server.stop()
    finally:
        hooks.stop()


def _rounds(
    layout: str,
    backend: str,
    server: Server,
    hooks: Server,
    driver: Driver,
    requests: dict[str, Requests],
    options: Options,
    url: str,
    hooked: str,
) -> None:
    delivering = layout == LAYOUTS[0][0]
    found: dict[str, list[tuple[float, Usage]]] = {name: [] for name in requests}
    for round_ in range(options.rounds):
        names = list(requests) if round_ % 2 == 0 else list(reversed(requests))
        for name in names:
            before = _usage(server, hooks, backend == "postgresql")
            taken = driver.run(server, name, requests[name], round_)
            if delivering and name == "one endpoint":
                webhooks.drain(url, hooked)
            after = _usage(server, hooks, backend == "postgresql")
            found[name].append((taken.rps, _per_request(before, after, max(1, taken.requests))))
    rates = {name: statistics.median(rps for rps, _ in runs) for name, runs in found.items()}
    ratio = rates["one endpoint"] / rates["no endpoint"]
    print(
        f"\n== {backend}, {layout} ({options.workers} workers, {options.rounds} rounds): "
        f"one endpoint / none = {ratio:.2f}x"
    )
    for name, runs in found.items():
        rps = rates[name]
        groups = runs[0][1].keys()
        parts = []
        for group in groups:
            user = statistics.median(usage[group][0] for _, usage in runs)
            system = statistics.median(usage[group][1] for _, usage in runs)
            parts.append(f"{group} {user:,.0f} + {system:,.0f}")
        print(f"  {name}: {rps:,.0f} req/s; CPU µs per request, user + system: {', '.join(parts)}")
