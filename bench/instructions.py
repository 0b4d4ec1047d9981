"""`python -m bench instructions`: CPU instructions per request, counted by callgrind.

On a shared or virtual machine, requests per second and CPU time move by ±15% between runs;
an instruction count repeats to a fraction of a percent, so it is the measure for a change
to our own code (`make bench` stays the measure of speed). The application runs in-process,
driven with ASGI calls (no socket, no uvicorn), against the bench's PostgreSQL database;
valgrind counts every instruction of the process, so two runs of different lengths are
taken and their difference divided by the extra requests: start-up and warm-up cancel out.

The driver half of this module runs inside valgrind: `python -m bench.instructions FILE N`.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

from bench.run import Options, prepare, scenarios_for
from bench.seed import QUICK
from bench.servers import ROOT, bench_env

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
    env = {**os.environ, **bench_env()}
    finished = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    found = _COLLECTED.search(finished.stderr)
    if finished.returncode != 0 or found is None:
        raise RuntimeError(f"callgrind run failed:\n{finished.stderr[-2000:]}")
    return int(found.group(1))


def instructions(options: Options) -> dict[str, int]:
    """Instructions per request of each scenario ours answers (PostgreSQL)."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        raise SystemExit("valgrind is missing: apt-get install valgrind")
    url = options.database_url("postgresql")
    options = replace(options, plan=QUICK)  # no 100k-issue workspace needed
    load = asyncio.run(prepare("postgresql", url, options))
    found: dict[str, int] = {}
    with tempfile.TemporaryDirectory(prefix="supportdesk-instructions-") as folder:
        for scenario in scenarios_for(load, options):
            ours = scenario.servers.get("ours")
            if ours is None or scenario.group in ("workspaces", "webhooks"):
                continue
            spec_file = Path(folder) / f"{scenario.key}.json"
            spec = {
                "url": url,
                "headers": [(k.lower(), v) for k, v in ours.headers.items()],
                "bodies": [body.decode() for body in ours.bodies],
            }
            spec_file.write_text(json.dumps(spec))
            with ThreadPoolExecutor(2) as runs:  # one run per core
                short_run = runs.submit(_collected, spec_file, WARM_UP + SHORT, valgrind)
                long_run = runs.submit(_collected, spec_file, WARM_UP + LONG, valgrind)
                short, long = short_run.result(), long_run.result()
            found[scenario.key] = (long - short) // (LONG - SHORT)
            print(f"  {scenario.label}: {found[scenario.key]:,} instructions per request")
    return found


if __name__ == "__main__":
    import uvloop  # as `supportdesk serve` runs

    uvloop.run(drive(json.loads(Path(sys.argv[1]).read_text()), int(sys.argv[2])))
