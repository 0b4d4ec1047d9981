"""`python -m bench profile`: where our server's CPU goes, per scenario, on PostgreSQL.

py-spy records the running server (one worker, so one process to sample) while wrk drives
one scenario; the collapsed stacks are then summed by package (self time) and by function
(inclusive time). Raw stacks are kept under bench/results/ for a flame graph
(`py-spy` writes an SVG next to them).
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

from bench import tools
from bench.load import Driver, LoadSettings, Measurement
from bench.run import Options, prepare
from bench.scenarios import Requests, operations
from bench.seed import QUICK
from bench.servers import Server, ours

SCENARIOS = ("issue", "createIssue")
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


def profile(options: Options, seconds: int) -> None:
    py_spy = shutil.which("py-spy", path=str(Path(sys.executable).parent)) or shutil.which("py-spy")
    if py_spy is None:
        raise SystemExit("py-spy is missing: pip install -e '.[bench]'")
    url = options.database_url("postgresql")
    options = replace(options, plan=QUICK)  # the profile needs no 100k-issue workspace
    load = asyncio.run(prepare("postgresql", url, options))
    scenarios = {s.key: s for s in operations(load, postgraphile=False)}
    folder = options.output
    server = ours(url, workers=1).start(folder / "logs" / "profile")
    try:
        driver = Driver(LoadSettings(tools.ensure_wrk(), seconds + 2, options.connections), False)
        for key in SCENARIOS:
            requests = scenarios[key].servers["ours"]
            driver.run(server, key, requests, -1, 2)  # warm the caches first
            raw = folder / f"profile-{key}.txt"
            recorder = subprocess.Popen(
                [
                    *(py_spy, "record", "--pid", str(server.pids()[0])),
                    *("--duration", str(seconds), "--rate", "250", "--function"),
                    *("--nonblocking", "--format", "raw", "--output", str(raw)),
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            figures = _while_recording(recorder, driver, server, key, requests, seconds)
            print(
                f"\n== profile of {key} (ours, PostgreSQL, 1 worker): {figures.rps:,.0f} req/s, "
                f"{figures.cpu_us_per_request:,.0f} µs CPU per request (py-spy attached)"
            )
            summary = summarise(raw)
            print(summary)
            (folder / f"profile-{key}-summary.txt").write_text(summary + "\n")
    finally:
        server.stop()
