"""Turning measurements into the table on stdout, a JSON file and a PNG chart.

Every figure is the median over the rounds; a ratio pairs the two servers' runs of the same
round (ours/floor in round 1, in round 2, ...) and takes the median of those ratios.
"""

from __future__ import annotations

import json
import statistics
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.load import Measurement

SERVERS = ("ours", "ours+metrics", "floor", "postgraphile")
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


def build(
    measurements: Sequence[Measurement],
    machine: dict[str, Any],
    settings: dict[str, Any],
    seconds: float,
) -> dict[str, Any]:
    summary = summarise(measurements)
    labels = {m.scenario: m.scenario for m in measurements}
    return {
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": machine,
        "settings": settings,
        "elapsed_seconds": round(seconds, 1),
        "summary": summary,
        "growth": growth(summary),
        "metrics_cost": metrics_cost(summary),
        "scenarios": sorted(labels),
        "measurements": [m.as_dict() for m in measurements],
    }


def _number(value: float | None, digits: int = 0, suffix: str = "") -> str:
    if value is None:
        return "-"
    return f"{value:,.{digits}f}{suffix}"


def table(result: dict[str, Any]) -> str:
    head = (
        f"{'backend':<11} {'scenario':<18} {'server':<13} {'req/s':>8} {'p50 ms':>7} "
        f"{'p99 ms':>7} {'CPU µs/req':>10} {'DB µs/req':>9} {'vs floor':>8} {'vs PGL':>7}"
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
                    f"{_number(figures['rps']):>8} {_number(figures['p50_ms'], 1):>7} "
                    f"{_number(figures['p99_ms'], 1):>7} "
                    f"{_number(figures['cpu_us_per_request']):>10} "
                    f"{_number(figures['db_cpu_us_per_request']):>9} "
                    f"{_number(figures['vs_floor'], 2, '×'):>8} "
                    f"{_number(figures['vs_postgraphile'], 2, '×'):>7}"
                    + (f"  ({figures['errors']} errors)" if figures["errors"] else "")
                )
                first_of_backend = first_of_scenario = False
        lines.append("")
    for backend, check in result["growth"].items():
        lines.append(
            f"{BACKEND_NAMES.get(backend, backend)}: {check['compared']}: throughput "
            f"{check['throughput_ratio']:.2f}×, CPU per request {check['cpu_ratio']:.2f}×"
        )
    for backend, check in result.get("metrics_cost", {}).items():
        lines.append(
            f"{BACKEND_NAMES.get(backend, backend)}: issue with /metrics on vs off: throughput "
            f"{check['throughput_ratio']:.2f}×, CPU per request {check['cpu_ratio']:.2f}×"
        )
    return "\n".join(lines)


def chart(result: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    summary = result["summary"]
    backends = list(summary)
    figure, axes = plt.subplots(len(backends), 3, figsize=(18, 5 * len(backends)), squeeze=False)
    colours = {
        "ours": "#2f6fb0",
        "ours+metrics": "#7fa8d6",
        "floor": "#8a8a8a",
        "postgraphile": "#d08a2c",
    }
    for row, backend in enumerate(backends):
        scenarios = summary[backend]
        name = BACKEND_NAMES.get(backend, backend)
        operations = [s for s in scenarios if not s.startswith(("messages-", "workspace-"))]
        ax = axes[row][0]
        width = 0.2
        for index, server in enumerate(SERVERS):
            values = [scenarios[s].get(server, {}).get("rps") or 0 for s in operations]
            positions = [x + (index - 1.5) * width for x in range(len(operations))]
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
