"""Turning measurements into the table on stdout, a JSON file and a PNG chart.

Every figure is the median over the rounds; a ratio pairs the two servers' runs of the same
round (ours/floor in round 1, in round 2, ...) and takes the median of those ratios. The
table leads with what a request costs, the server's CPU and the database's, before the
throughput that those costs allow on the machine's shared cores.
"""

from __future__ import annotations

import json
import statistics
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.load import ROUND_SECONDS, WARM_UP_SECONDS, Measurement

SERVERS = ("ours", "ours+graphql", "ours+metrics", "ours+webhook", "floor", "postgraphile")
WEBHOOK_SCENARIO = "createIssue-webhook"
# CONTRACT §11 and the targets: one endpoint keeps >= 0.9x of createIssue's
# throughput; the first attempt leaves within 1 s of the commit (p95).
WEBHOOK_THROUGHPUT_TARGET = 0.9
# Mail taken through the SMTP listener, per serve worker and second.
MAIL_TARGET = 100
# replyToIssue's throughput with the reply sent by mail, of that without.
REPLY_MAIL_TARGET = 0.9
WEBHOOK_P95_TARGET_MS = 1000.0
BACKEND_NAMES = {"sqlite": "SQLite", "postgresql": "PostgreSQL"}


def _median(values: Sequence[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return statistics.median(present) if present else None


def _ratio(runs: dict[str, dict[int, Measurement]], server: str, baseline: str) -> float | None:
    rounds = sorted(set(runs.get(server, {})) & set(runs.get(baseline, {})))
    ratios = [runs[server][r].rps / runs[baseline][r].rps for r in rounds if runs[baseline][r].rps]
    return statistics.median(ratios) if ratios else None


def summarise(measurements: Sequence[Measurement]) -> dict[str, dict[str, dict[str, Any]]]:
    """backend -> scenario -> {label-less figures per server, ratios}."""
    grouped: dict[str, dict[str, dict[str, dict[int, Measurement]]]] = defaultdict(
        lambda: defaultdict(lambda: defaultdict(dict))
    )
    for m in measurements:
        if m.round >= 0:
            grouped[m.backend][m.scenario][m.server][m.round] = m
    summary: dict[str, dict[str, dict[str, Any]]] = {}
    for backend, scenarios in grouped.items():
        summary[backend] = {}
        for scenario, runs in scenarios.items():
            entry: dict[str, Any] = {}
            for server, by_round in runs.items():
                taken = list(by_round.values())
                entry[server] = {
                    "rps": _median([m.rps for m in taken]),
                    "p50_ms": _median([m.p50_ms for m in taken]),
                    "p99_ms": _median([m.p99_ms for m in taken]),
                    "cpu_us_per_request": _median([m.cpu_us_per_request for m in taken]),
                    "db_cpu_us_per_request": _median([m.db_cpu_us_per_request for m in taken]),
                    "errors": sum(m.errors for m in taken),
                    "rounds": len(taken),
                    "vs_floor": _ratio(runs, server, "floor") if "floor" in runs else None,
                    "vs_postgraphile": _ratio(runs, server, "postgraphile")
                    if "postgraphile" in runs
                    else None,
                }
            summary[backend][scenario] = entry
    return summary


def growth(summary: dict[str, dict[str, dict[str, Any]]]) -> dict[str, dict[str, Any]]:
    """The headline checks: the largest workspace against the smallest, per backend."""
    found: dict[str, dict[str, Any]] = {}
    for backend, scenarios in summary.items():
        small = scenarios.get("workspace-1k", {}).get("ours")
        sizes = [k for k in ("workspace-100k", "workspace-10k") if k in scenarios]
        if small and sizes and small["rps"] and small["cpu_us_per_request"]:
            large = scenarios[sizes[0]]["ours"]
            found[backend] = {
                "compared": f"{sizes[0]} vs workspace-1k",
                "throughput_ratio": large["rps"] / small["rps"],
                "cpu_ratio": large["cpu_us_per_request"] / small["cpu_us_per_request"],
            }
    return found


# The inbox issue's targets: the queue's page and the issue page each cost the server at
# most 1.5x the CPU of the GraphQL request that reads the same data, and the queue's page
# at most 1.2x in the 100k-issue workspace what it costs in the 1k one.
INBOX_PAGE_TARGET = 1.5
INBOX_GROWTH_TARGET = 1.2


def inbox_checks(summary: dict[str, dict[str, dict[str, Any]]]) -> dict[str, dict[str, Any]]:
    """The inbox's Mine page and its issue page against their GraphQL twins, and the
    largest workspace's Mine page against the smallest's, in server CPU per request, per
    backend."""
    found: dict[str, dict[str, Any]] = {}
    for backend, scenarios in summary.items():
        entry: dict[str, Any] = {}
        for scenario, name in (("inbox-queue", "page"), ("inbox-issue", "issue_page")):
            pair = scenarios.get(scenario, {})
            page, graphql = pair.get("ours"), pair.get("ours+graphql")
            if page and graphql and graphql["cpu_us_per_request"]:
                ratio = page["cpu_us_per_request"] / graphql["cpu_us_per_request"]
                entry[f"{name}_vs_graphql_cpu"] = ratio
                entry[f"{name}_meets_target"] = ratio <= INBOX_PAGE_TARGET
        small = scenarios.get("inbox-queue-1k", {}).get("ours")
        large_key = next(
            (k for k in ("inbox-queue-100k", "inbox-queue-10k") if k in scenarios), None
        )
        if small and large_key and small["cpu_us_per_request"] and small["rps"]:
            large = scenarios[large_key]["ours"]
            entry["compared"] = f"{large_key} vs inbox-queue-1k"
            entry["growth_cpu"] = large["cpu_us_per_request"] / small["cpu_us_per_request"]
            entry["growth_throughput"] = large["rps"] / small["rps"]
            entry["growth_meets_target"] = entry["growth_cpu"] <= INBOX_GROWTH_TARGET
        if entry:
            found[backend] = entry
    return found


# CONTRACT section 12's target: a search in a 100k-issue workspace answers within twice
# the time of one in a 1k-issue workspace.
SEARCH_TIME_TARGET = 2.0


def search_growth(summary: dict[str, dict[str, dict[str, Any]]]) -> dict[str, dict[str, Any]]:
    """The issue search in the largest workspace against the smallest, per backend: the
    time of a request (median latency, CPU per request) and the throughput."""
    found: dict[str, dict[str, Any]] = {}
    for backend, scenarios in summary.items():
        small = scenarios.get("search-1k", {}).get("ours")
        sizes = [k for k in ("search-100k", "search-10k") if k in scenarios]
        if not (small and sizes and small["rps"] and small["p50_ms"]):
            continue
        large = scenarios[sizes[0]]["ours"]
        entry = {
            "compared": f"{sizes[0]} vs search-1k",
            "p50_ratio": large["p50_ms"] / small["p50_ms"],
            "throughput_ratio": large["rps"] / small["rps"],
            "cpu_ratio": None,
        }
        if small["cpu_us_per_request"] and large["cpu_us_per_request"]:
            entry["cpu_ratio"] = large["cpu_us_per_request"] / small["cpu_us_per_request"]
        entry["meets_target"] = entry["p50_ratio"] <= SEARCH_TIME_TARGET
        found[backend] = entry
    return found


def metrics_cost(summary: dict[str, dict[str, dict[str, Any]]]) -> dict[str, dict[str, Any]]:
    """What recording Prometheus metrics costs `issue`, per backend."""
    found: dict[str, dict[str, Any]] = {}
    for backend, scenarios in summary.items():
        entry = scenarios.get("issue-metrics", {})
        off, on = entry.get("ours"), entry.get("ours+metrics")
        if off and on and off["rps"] and off["cpu_us_per_request"] and on["cpu_us_per_request"]:
            found[backend] = {
                "throughput_ratio": on["rps"] / off["rps"],
                "cpu_ratio": on["cpu_us_per_request"] / off["cpu_us_per_request"],
            }
    return found


def _paired(
    without: dict[int, Measurement], with_one: dict[int, Measurement], figure: str
) -> float | None:
    """The median over rounds of with / without, each round's runs paired."""
    ratios = []
    for round_ in sorted(set(without) & set(with_one)):
        base, other = getattr(without[round_], figure), getattr(with_one[round_], figure)
        if base and other is not None:
            ratios.append(other / base)
    return statistics.median(ratios) if ratios else None


def webhook_cost(
    measurements: Sequence[Measurement], webhooks: dict[str, dict[str, Any]]
) -> dict[str, dict[str, Any]]:
    """Per backend: createIssue into a workspace with one endpoint (taking every event
    type) vs none on the same server (ratios of the same round's runs, median), the
    createdAt → first attempt latency per process layout, and the deliveries' outcome."""
    runs: dict[str, dict[str, dict[int, Measurement]]] = defaultdict(lambda: defaultdict(dict))
    for m in measurements:
        if m.scenario == WEBHOOK_SCENARIO and m.round >= 0:
            runs[m.backend][m.server][m.round] = m
    found: dict[str, dict[str, Any]] = {}
    for backend in dict.fromkeys([*runs, *webhooks]):
        by_server = runs.get(backend, {})
        extra = webhooks.get(backend, {})
        entry: dict[str, Any] = {}
        if "ours" in by_server and "ours+webhook" in by_server:
            without, with_one = by_server["ours"], by_server["ours+webhook"]
            extra_runs = extra.get("runs", [])
            entry = {
                "rps_without": _median([m.rps for m in without.values()]),
                "rps_with": _median([m.rps for m in with_one.values()]),
                "throughput_ratio": _paired(without, with_one, "rps"),
                "cpu_us_per_request_without": _median(
                    [m.cpu_us_per_request for m in without.values()]
                ),
                "cpu_us_per_request_with": _median(
                    [m.cpu_us_per_request for m in with_one.values()]
                ),
                "cpu_ratio": _paired(without, with_one, "cpu_us_per_request"),
                "db_cpu_ratio": _paired(without, with_one, "db_cpu_us_per_request"),
                "cpu_us_per_request_with_drain": _median(
                    [r["cpu_us_per_request_with_drain"] for r in extra_runs]
                ),
                "receiver_cpu_us_per_delivery": _median(
                    [r["receiver_cpu_us_per_delivery"] for r in extra_runs]
                ),
                "deliveries_per_request": _median(
                    [r["deliveries"] / r["requests"] for r in extra_runs if r["requests"]]
                ),
                "most_pending_when_load_stopped": max(
                    (r["pending_when_load_stopped"] for r in extra_runs), default=None
                ),
                "runs": extra_runs,
            }
            ratio = entry["throughput_ratio"]
            entry["meets_throughput_target"] = (
                ratio is not None and ratio >= WEBHOOK_THROUGHPUT_TARGET
            )
        latency = {
            key: {
                **figures,
                "meets_target": figures.get("p95_ms") is not None
                and figures["p95_ms"] < WEBHOOK_P95_TARGET_MS,
            }
            for key, figures in extra.get("latency", {}).items()
        }
        entry["latency"] = latency
        if latency:
            # The target holds at the steady load well below saturation: the lowest rate,
            # in every process layout (the higher rates show the way to saturation).
            lowest = min(figures["rate"] for figures in latency.values())
            entry["meets_latency_target"] = all(
                figures["meets_target"] for figures in latency.values() if figures["rate"] == lowest
            )
        entry["deliveries"] = extra.get("deliveries")
        found[backend] = entry
    return found


def build(
    measurements: Sequence[Measurement],
    machine: dict[str, Any],
    settings: dict[str, Any],
    seconds: float,
    webhooks: dict[str, dict[str, Any]] | None = None,
) -> dict[str, Any]:
    summary = summarise(measurements)
    if not settings.get("fair_to_postgraphile", True):
        # Unwarmed or short runs measure V8 still compiling: no ratio is drawn from them.
        for scenarios in summary.values():
            for entry in scenarios.values():
                for figures in entry.values():
                    figures["vs_postgraphile"] = None
    labels = {m.scenario: m.scenario for m in measurements}
    return {
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": machine,
        "settings": settings,
        "elapsed_seconds": round(seconds, 1),
        "summary": summary,
        "growth": growth(summary),
        "search_growth": search_growth(summary),
        "metrics_cost": metrics_cost(summary),
        "inbox": inbox_checks(summary),
        "webhooks": webhook_cost(measurements, webhooks or {}),
        "scenarios": sorted(labels),
        "measurements": [m.as_dict() for m in measurements],
    }


def _number(value: float | None, digits: int = 0, suffix: str = "") -> str:
    if value is None:
        return "-"
    return f"{value:,.{digits}f}{suffix}"


def table(result: dict[str, Any]) -> str:
    head = (
        f"{'backend':<11} {'scenario':<18} {'server':<13} {'CPU µs/req':>10} {'DB µs/req':>9} "
        f"{'req/s':>8} {'p50 ms':>7} {'p99 ms':>7} {'vs floor':>8} {'vs PGL':>7}"
    )
    lines = [head, "-" * len(head)]
    for backend, scenarios in result["summary"].items():
        first_of_backend = True
        for scenario, entry in scenarios.items():
            first_of_scenario = True
            for server in SERVERS:
                if server not in entry:
                    continue
                figures = entry[server]
                lines.append(
                    f"{(BACKEND_NAMES.get(backend, backend) if first_of_backend else ''):<11} "
                    f"{(scenario if first_of_scenario else ''):<18} {server:<13} "
                    f"{_number(figures['cpu_us_per_request']):>10} "
                    f"{_number(figures['db_cpu_us_per_request']):>9} "
                    f"{_number(figures['rps']):>8} {_number(figures['p50_ms'], 1):>7} "
                    f"{_number(figures['p99_ms'], 1):>7} "
                    f"{_number(figures['vs_floor'], 2, '×'):>8} "
                    f"{_number(figures['vs_postgraphile'], 2, '×'):>7}"
                    + (f"  ({figures['errors']} errors)" if figures["errors"] else "")
                )
                first_of_backend = first_of_scenario = False
        lines.append("")
    settings = result.get("settings", {})
    if not settings.get("fair_to_postgraphile", True):
        lines.append(
            f"No ratio to PostGraphile: this run's warm-ups ({settings.get('warmup_seconds')} s) "
            f"or rounds ({settings.get('seconds')} s) are shorter than a fair comparison needs "
            f"({WARM_UP_SECONDS} s, {ROUND_SECONDS} s)."
        )
    for backend, check in result["growth"].items():
        lines.append(
            f"{BACKEND_NAMES.get(backend, backend)}: {check['compared']}: throughput "
            f"{check['throughput_ratio']:.2f}×, CPU per request {check['cpu_ratio']:.2f}×"
        )
    for backend, check in result.get("search_growth", {}).items():
        verdict = "meets" if check["meets_target"] else "MISSES"
        lines.append(
            f"{BACKEND_NAMES.get(backend, backend)}: issue search, {check['compared']}: "
            f"median time {check['p50_ratio']:.2f}× ({verdict} the {SEARCH_TIME_TARGET:g}× "
            f"target), CPU per request {_number(check['cpu_ratio'], 2, '×')}, throughput "
            f"{check['throughput_ratio']:.2f}×"
        )
    for backend, check in result.get("inbox", {}).items():
        name = BACKEND_NAMES.get(backend, backend)
        if "page_vs_graphql_cpu" in check:
            verdict = "meets" if check["page_meets_target"] else "MISSES"
            lines.append(
                f"{name}: inbox Mine page vs its GraphQL request: server CPU per request "
                f"{check['page_vs_graphql_cpu']:.2f}× ({verdict} the {INBOX_PAGE_TARGET:g}× target)"
            )
        if "issue_page_vs_graphql_cpu" in check:
            verdict = "meets" if check["issue_page_meets_target"] else "MISSES"
            lines.append(
                f"{name}: inbox issue page vs its GraphQL request: server CPU per request "
                f"{check['issue_page_vs_graphql_cpu']:.2f}× ({verdict} the "
                f"{INBOX_PAGE_TARGET:g}× target)"
            )
        if "growth_cpu" in check:
            verdict = "meets" if check["growth_meets_target"] else "MISSES"
            lines.append(
                f"{name}: inbox Mine page, {check['compared']}: server CPU per request "
                f"{check['growth_cpu']:.2f}× ({verdict} the {INBOX_GROWTH_TARGET:g}× target), "
                f"throughput {check['growth_throughput']:.2f}×"
            )
    for backend, check in result.get("metrics_cost", {}).items():
        lines.append(
            f"{BACKEND_NAMES.get(backend, backend)}: issue with /metrics on vs off: throughput "
            f"{check['throughput_ratio']:.2f}×, CPU per request {check['cpu_ratio']:.2f}×"
        )
    lines += webhook_lines(result.get("webhooks", {}))
    lines += mail_lines(result.get("mail", {}))
    lines += reply_mail_lines(result.get("reply_mail", {}))
    return "\n".join(lines)


def reply_mail_lines(replies: dict[str, dict[str, Any]]) -> list[str]:
    """replyToIssue with mail on vs off (bench/outbound.py), one line per backend."""
    lines = []
    for backend, entry in replies.items():
        verdict = "meets" if entry["meets_target"] else "MISSES"
        mail = ", ".join(f"{count:,} {status}" for status, count in sorted(entry["mail"].items()))
        lines.append(
            f"{BACKEND_NAMES.get(backend, backend)}: replyToIssue with mail vs without: "
            f"throughput {_number(entry['ratio'], 2, '×')} ({_number(entry['rps_with'])} vs "
            f"{_number(entry['rps_without'])} req/s over {entry['rounds']} rounds; {verdict} "
            f"the {REPLY_MAIL_TARGET}× target), server CPU per request "
            f"{_number(entry['cpu_us_per_request_with'])} vs "
            f"{_number(entry['cpu_us_per_request_without'])} µs; "
            f"{_number(entry['mail_per_reply'], 2)} mails sent per reply ({mail}), at most "
            f"{entry['most_pending_when_load_stopped']:,} pending when wrk stopped"
            + (f"; {entry['errors']} ERRORS" if entry["errors"] else "")
        )
    return lines


def mail_lines(mail: dict[str, dict[str, Any]]) -> list[str]:
    """The inbound mail figures (bench/inbound.py), one line per backend."""
    lines = []
    for backend, entry in mail.items():
        per_worker = (entry["messages_per_second"] or 0) / entry["workers"]
        verdict = "meets" if per_worker >= MAIL_TARGET else "MISSES"
        ended = ", ".join(
            f"{count:,} {status}" for status, count in sorted(entry["statuses"].items())
        )
        lines.append(
            f"{BACKEND_NAMES.get(backend, backend)}: mail in over SMTP ({entry['connections']} "
            f"connections, {entry['message_bytes']:,}-byte messages): "
            f"{_number(per_worker)} a second per worker ({verdict} the {MAIL_TARGET}/s target), "
            f"{_number(entry['server_cpu_us_per_message'])} µs server CPU per message"
            + (
                f", {_number(entry['postgres_cpu_us_per_message'])} µs PostgreSQL CPU"
                if entry.get("postgres_cpu_us_per_message") is not None
                else ""
            )
            + f", p50 {_number(entry['p50_ms'], 0, ' ms')}; kept: {ended}"
            + (f"; {entry['failed']} REFUSED" if entry["failed"] else "")
        )
    return lines


def webhook_lines(webhooks: dict[str, dict[str, Any]]) -> list[str]:
    lines = []
    for backend, entry in webhooks.items():
        name = BACKEND_NAMES.get(backend, backend)
        if entry.get("throughput_ratio") is not None:
            verdict = "meets" if entry["meets_throughput_target"] else "MISSES"
            lines.append(
                f"{name}: createIssue with one webhook endpoint vs none: throughput "
                f"{entry['throughput_ratio']:.2f}× ({_number(entry['rps_with'])} vs "
                f"{_number(entry['rps_without'])} req/s; {verdict} the "
                f"{WEBHOOK_THROUGHPUT_TARGET}× target), CPU per request "
                f"{_number(entry['cpu_ratio'], 2, '×')} "
                f"({_number(entry['cpu_us_per_request_with'])} vs "
                f"{_number(entry['cpu_us_per_request_without'])} µs"
                + (
                    f"; DB {_number(entry['db_cpu_ratio'], 2, '×')}"
                    if entry.get("db_cpu_ratio") is not None
                    else ""
                )
                + f"), {_number(entry['deliveries_per_request'], 2)} deliveries per request, "
                f"at most {_number(entry['most_pending_when_load_stopped'])} pending when wrk "
                f"stopped; the receiver spent "
                f"{_number(entry['receiver_cpu_us_per_delivery'])} µs CPU per delivery"
            )
        for figures in entry.get("latency", {}).values():
            lines.append(
                f"{name}: createdAt → first attempt ({figures['layout']}, "
                f"{figures['rate']:g} createIssue/s "
                f"for {figures['seconds']:g} s, {figures['events']:,} events): "
                f"p50 {_number(figures['p50_ms'], 0, ' ms')}, "
                f"p95 {_number(figures['p95_ms'], 0, ' ms')}, "
                f"max {_number(figures['max_ms'], 0, ' ms')}"
                + ("" if figures["meets_target"] else " (MISSES p95 < 1 s)")
                + (
                    "; the dispatch process spent "
                    f"{_number(figures['dispatcher_cpu_us_per_delivery'])} µs CPU per delivery"
                    if figures.get("dispatcher_cpu_us_per_delivery") is not None
                    else ""
                )
            )
        deliveries = entry.get("deliveries")
        if deliveries:
            lines.append(
                f"{name}: webhook deliveries: {deliveries['succeeded']:,} of "
                f"{deliveries['total']:,} succeeded ({deliveries['retried']} after a retry, "
                f"{deliveries['failed']} failed, {deliveries['pending']} pending)"
                + ("" if deliveries["all_succeeded"] else "  NOT ALL SUCCEEDED")
            )
    return lines


def chart(result: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    summary = result["summary"]
    backends = list(summary)
    figure, axes = plt.subplots(len(backends), 3, figsize=(18, 5 * len(backends)), squeeze=False)
    colours = {
        "ours": "#2f6fb0",
        "ours+graphql": "#9b6fc0",
        "ours+metrics": "#7fa8d6",
        "ours+webhook": "#4f9a6a",
        "ours+inbox": "#9b59b6",
        "floor": "#8a8a8a",
        "postgraphile": "#d08a2c",
    }
    for row, backend in enumerate(backends):
        scenarios = summary[backend]
        name = BACKEND_NAMES.get(backend, backend)
        operations = [
            s
            for s in scenarios
            if not s.startswith(("messages-", "workspace-", "search-", "inbox-queue-"))
        ]
        ax = axes[row][0]
        width = 0.8 / len(SERVERS)
        middle = (len(SERVERS) - 1) / 2
        for index, server in enumerate(SERVERS):
            values = [scenarios[s].get(server, {}).get("rps") or 0 for s in operations]
            positions = [x + (index - middle) * width for x in range(len(operations))]
            ax.bar(positions, values, width, label=server, color=colours[server])
        ax.set_xticks(range(len(operations)), operations, rotation=20)
        ax.set_ylabel("requests/s")
        ax.set_title(f"{name}: operations")
        ax.legend()
        ax = axes[row][1]
        sizes = sorted((int(s.split("-")[1]), s) for s in scenarios if s.startswith("messages-"))
        for server in ("ours", "floor"):
            points = [(n, scenarios[s][server]["rps"]) for n, s in sizes if server in scenarios[s]]
            if points:
                ax.plot(*zip(*points, strict=True), marker="o", label=server, color=colours[server])
        ax.set_xlabel("messages(first: N)")
        ax.set_ylabel("requests/s")
        ax.set_title(f"{name}: issue with N messages")
        ax.legend()
        ax = axes[row][2]
        spaces = [s for s in scenarios if s.startswith("workspace-")]
        ax.bar(
            [s.split("-")[1] for s in spaces],
            [scenarios[s]["ours"]["rps"] for s in spaces],
            color=colours["ours"],
        )
        ax.set_xlabel("issues in the workspace")
        ax.set_ylabel("requests/s (ours)")
        ax.set_title(f"{name}: issue query by workspace size")
    figure.suptitle(
        f"supportdesk bench {result['when']} ({result['machine']['cores']} cores, "
        f"{result['settings']['connections']} connections)"
    )
    figure.tight_layout()
    figure.savefig(path, dpi=90)
    plt.close(figure)


def publish(result: dict[str, Any], folder: Path) -> tuple[Path, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    stamp = result["when"].replace(":", "").replace("-", "")
    json_path = folder / f"bench-{stamp}.json"
    png_path = folder / f"bench-{stamp}.png"
    json_path.write_text(json.dumps(result, indent=2))
    (folder / "latest.json").write_text(json.dumps(result, indent=2))
    print()
    print(table(result))
    chart(result, png_path)
    (folder / "latest.png").write_bytes(png_path.read_bytes())
    print(f"\nJSON  {json_path}\nchart {png_path}\n({result['elapsed_seconds']:.0f} s in all)")
    return json_path, png_path
