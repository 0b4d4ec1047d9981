"""`python -m bench instructions`: CPU instructions per request, counted by callgrind.

On a shared or virtual machine, requests per second and CPU time move by ±15% between runs;
an instruction count repeats to a fraction of a percent, so it is the measure for a change
to our own code (`make bench` stays the measure of speed). The application runs in-process,
driven with ASGI calls (no socket, no uvicorn), against the bench's PostgreSQL database;
valgrind counts every instruction of the process, so two runs of different lengths are
taken and their difference divided by the extra requests: start-up and warm-up cancel out.
What would not cancel out is kept out: each run sends a key of its own (a key's lastUsedAt
is written on its first use and then at most once a minute, so with one key shared, one
run would write it and the other not, depending on the clock), and both run with the same
hash seed (the layout of dicts and sets, and so the start-up's count, stays the same).

Each count is printed beside its baseline in docs/bench/instructions.json (the counts of
the code before a change, recorded with `--record`), and any above it by more than the
counts' own repeatability is flagged: the command then exits with status 1.

The driver half of this module runs inside valgrind: `python -m bench.instructions FILE N`.
"""

from __future__ import annotations

import asyncio
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

from bench import seed
from bench.run import Options, prepare, scenarios_for
from bench.scenarios import Requests, Workload
from bench.seed import QUICK
from bench.servers import ROOT, bench_env

BASELINE = ROOT / "docs" / "bench" / "instructions.json"
# Two runs of the same code differ by less than this (the database's state, the rows new
# since); a count further above its baseline is a change of our code.
TOLERANCE = 0.005

WARM_UP = 100
SHORT, LONG = 50, 250
_COLLECTED = re.compile(r"Collected : (\d+)")


async def drive(spec: dict[str, Any], requests: int) -> None:
    """Send `requests` POSTs of the spec's bodies to a fresh application, in turn."""
    import logging.config

    from supportdesk.app import create_app
    from supportdesk.config import Settings
    from supportdesk.logs import logging_config

    logging.config.dictConfig(logging_config(json_lines=True))
    app = create_app(Settings(database_url=spec["url"]))
    headers = [(k.encode(), v.encode()) for k, v in spec["headers"]] + [(b"host", b"bench")]
    bodies = [body.encode() for body in spec["bodies"]]
    for index in range(requests):
        status = await _call(app, headers, bodies[index % len(bodies)])
        if status != 200:
            raise SystemExit(f"request {index} answered {status}")
    await app.state.db.dispose()


async def _call(app: Any, headers: list[tuple[bytes, bytes]], body: bytes) -> int:
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/graphql",
        "raw_path": b"/graphql",
        "query_string": b"",
        "root_path": "",
        "headers": [*headers, (b"content-length", str(len(body)).encode())],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
        "state": {},
    }
    delivered = False
    started: list[int] = []

    async def receive() -> dict[str, Any]:
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}
        await asyncio.Event().wait()  # the client never disconnects
        return {}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            started.append(message["status"])

    await app(scope, receive, send)
    return started[0]


def _collected(spec_file: Path, requests: int, valgrind: str) -> int:
    command = [
        *(valgrind, "--tool=callgrind", "--callgrind-out-file=/dev/null"),
        *(sys.executable, "-m", "bench.instructions", str(spec_file), str(requests)),
    ]
    env = {**os.environ, **bench_env(), "PYTHONHASHSEED": "0"}
    finished = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    found = _COLLECTED.search(finished.stderr)
    if finished.returncode != 0 or found is None:
        raise RuntimeError(f"callgrind run failed:\n{finished.stderr[-2000:]}")
    return int(found.group(1))


def _spec_file(path: Path, url: str, load: Workload, ours: Requests) -> Path:
    """What one run sends: our bodies, with a key of the same workspace made for the run."""
    workspace = next(name for name in load.keys if load.bearer(name) == ours.authorization)
    key = asyncio.run(seed.new_key(url, load.workspace_ids[workspace]))
    fresh = replace(ours, authorization=f"Bearer {key}")
    spec = {
        "url": url,
        "headers": [(k.lower(), v) for k, v in fresh.headers.items()],
        "bodies": [body.decode() for body in fresh.bodies],
    }
    path.write_text(json.dumps(spec))
    return path


def instructions(options: Options, record: bool = False) -> dict[str, int]:
    """Instructions per request of each scenario ours answers (PostgreSQL), each printed
    beside its baseline; with `record`, they become the baseline."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        raise SystemExit("valgrind is missing: apt-get install valgrind")
    url = options.database_url("postgresql")
    options = replace(options, plan=QUICK)  # no 100k-issue workspace needed
    load = asyncio.run(prepare("postgresql", url, options))
    baseline = read_baseline()
    found: dict[str, int] = {}
    with tempfile.TemporaryDirectory(prefix="supportdesk-instructions-") as folder:
        for scenario in scenarios_for(load, options):
            ours = scenario.servers.get("ours")
            if ours is None or scenario.group in ("workspaces", "webhooks", "metrics"):
                continue  # the metrics scenario's `ours` is `issue` again
            short_spec, long_spec = (
                _spec_file(Path(folder) / f"{scenario.key}-{length}.json", url, load, ours)
                for length in ("short", "long")
            )
            with ThreadPoolExecutor(2) as runs:  # one run per core
                short_run = runs.submit(_collected, short_spec, WARM_UP + SHORT, valgrind)
                long_run = runs.submit(_collected, long_spec, WARM_UP + LONG, valgrind)
                short, long = short_run.result(), long_run.result()
            found[scenario.key] = (long - short) // (LONG - SHORT)
            print(
                f"  {scenario.label}: {compared(found[scenario.key], baseline.get(scenario.key))}"
            )
    if record:
        write_baseline({**baseline, **found})
        print(f"recorded as the baseline in {BASELINE.relative_to(ROOT)}")
    return found


def above_baseline(found: dict[str, int]) -> list[str]:
    """The scenarios whose count is above the baseline's by more than TOLERANCE."""
    baseline = read_baseline()
    return [key for key, count in found.items() if _above(count, baseline.get(key))]


def _above(count: int, base: int | None) -> bool:
    return base is not None and count > base * (1 + TOLERANCE)


def compared(count: int, base: int | None) -> str:
    """A count beside its baseline, flagged when above it by more than TOLERANCE."""
    text = f"{count:,} instructions per request"
    if base is None:
        return text + " (no baseline)"
    verdict = "  ABOVE THE BASELINE" if _above(count, base) else ""
    return f"{text}, baseline {base:,} ({count / base - 1:+.2%}){verdict}"


def read_baseline() -> dict[str, int]:
    if not BASELINE.exists():
        return {}
    counts: dict[str, int] = json.loads(BASELINE.read_text())["instructions_per_request"]
    return counts


def write_baseline(counts: dict[str, int]) -> None:
    commit = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    recorded = {
        "about": "make bench-instructions: CPU instructions per request of ours on PostgreSQL "
        "at `commit`, counted by callgrind (bench/instructions.py); later counts are printed "
        f"beside these, and one more than {TOLERANCE:.1%} above fails the command.",
        "recorded": time.strftime("%Y-%m-%d"),
        "commit": commit,
        "python": platform.python_version(),
        "instructions_per_request": counts,
    }
    BASELINE.write_text(json.dumps(recorded, indent=2) + "\n")


if __name__ == "__main__":
    import uvloop  # as `supportdesk serve` runs

    uvloop.run(drive(json.loads(Path(sys.argv[1]).read_text()), int(sys.argv[2])))
