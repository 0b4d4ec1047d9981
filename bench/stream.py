"""`python -m bench stream`: 2,000 open event streams on one `serve` worker
(docs/events-stream.md), held by a client process of raw asyncio connections
(bench/stream_clients.py), 10 per key over 200 keys of one workspace.

- **Latency**: createIssue into the streamed workspace at a steady, modest rate (open loop),
  and for each event and each stream the time from the event's `createdAt` (taken in the
  transaction, to the millisecond) to its arrival: p50, p95 and max over every arrival.
- **Memory**: the worker's RSS with the streams open less its RSS before the first was
  opened, per stream.
- **Throughput**: createIssue driven by wrk as the bench measures it, into another workspace,
  with no stream open and with the 2,000 open, in alternating rounds (the streams opened
  anew for each round with them).

One worker (`--workers 1`, no dispatcher), so that every stream and every write meet in
the same process."""

from __future__ import annotations

import asyncio
import json
import statistics
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from bench import seed, tools
from bench.load import Driver, LoadSettings
from bench.run import Options, prepare
from bench.scenarios import Requests, create_issue_requests
from bench.seed import QUICK, WorkspaceSpec
from bench.servers import ROOT, Server, ours
from bench.webhooks import percentile, steady_load

SCENARIO = "stream"
# Made anew each run; what the latency writes add goes with it.
WORKSPACE = WorkspaceSpec("bench-stream", 20, messages_per_issue=2)
STREAMS = 2_000
PER_KEY = 10
LATENCY_SECONDS = 30.0


async def _stream_workspace(url: str, keys: int) -> tuple[str, list[str]]:
    """The streamed workspace, made anew, and `keys` keys of it."""
    await seed.drop_workspace(url, WORKSPACE.name)
    workspace_id = (await seed.seed(url, [WORKSPACE]))[WORKSPACE.name].workspace_id
    return workspace_id, [await seed.new_key(url, workspace_id) for _ in range(keys)]


def rss_bytes(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except FileNotFoundError:
            continue
        kilobytes = next(
            line.split()[1] for line in status.splitlines() if line.startswith("VmRSS")
        )
        total += int(kilobytes) * 1024
    return total


class StreamClients:
    """bench/stream_clients.py in a process of its own, holding the streams."""

    def __init__(self, server: Server, keys_file: Path) -> None:
        command = [sys.executable, "-m", "bench.stream_clients", "--url", server.url]
        command += ["--keys", str(keys_file), "--per-key", str(PER_KEY)]
        self.process = subprocess.Popen(
            command, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        self.opened_in = 0.0

    def open(self) -> StreamClients:
        started = time.monotonic()
        line = self._line()
        if not line.startswith("open "):
            raise RuntimeError(f"the stream clients did not open their streams: {line!r}")
        self.opened_in = time.monotonic() - started
        return self

    def _line(self) -> str:
        assert self.process.stdout is not None
        return self.process.stdout.readline().strip()

    def _tell(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def mark(self) -> None:
        self._tell("mark")
        assert self._line() == "marked"

    def figures(self) -> dict[str, Any]:
        """What arrived since the mark."""
        self._tell("figures")
        figures: dict[str, Any] = json.loads(self._line())
        return figures

    def stop(self) -> None:
        self._tell("stop")
        self.process.wait(timeout=30)

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)


def _settled_rss(server: Server) -> int:
    time.sleep(2)  # the streams' first keep-alive checks and the tailer's reads done
    return rss_bytes(server.pids())


def stream(options: Options) -> None:
    for backend in options.backends:
        figures = stream_backend(backend, options)
        options.output.mkdir(parents=True, exist_ok=True)
        (options.output / f"stream-{backend}.json").write_text(json.dumps(figures, indent=2))


def stream_backend(backend: str, options: Options) -> dict[str, Any]:
    url = options.database_url(backend)
    load = asyncio.run(prepare(backend, url, replace(options, plan=QUICK)))
    _, keys = asyncio.run(_stream_workspace(url, STREAMS // PER_KEY))
    keys_file = options.output / "stream-keys.txt"
    keys_file.parent.mkdir(parents=True, exist_ok=True)
    keys_file.write_text("".join(f"{key}\n" for key in keys))
    writes = create_issue_requests(load, load.writes_workspace)
    streamed = Requests(writes.bodies, f"Bearer {keys[0]}")
    settings = LoadSettings(tools.ensure_wrk(), options.seconds, options.connections)
    driver = Driver(settings, count_postgres=backend == "postgresql")
    server = ours(url, 1, dispatch=False, name="ours-stream").start(options.output / "logs")
    clients: StreamClients | None = None
    try:
        driver.run(server, "createIssue", writes, -1, options.warmup)
        steady_load(server.url, streamed, options.stream_rate, 2)  # the streamed workspace's writes
        rss_before = _settled_rss(server)
        rates: dict[str, list[float]] = {"none": [], "open": []}
        cpu: dict[str, list[float]] = {"none": [], "open": []}
        result: dict[str, Any] = {}
        for round_ in range(options.rounds):
            taken = driver.run(server, "createIssue", writes, round_)
            rates["none"].append(taken.rps)
            cpu["none"].append(taken.cpu_us_per_request)
            clients = StreamClients(server, keys_file).open()
            if round_ == 0:
                result = _latency_and_memory(
                    server, clients, streamed, rss_before, options.stream_rate
                )
            taken = driver.run(server, "createIssue", writes, round_)
            rates["open"].append(taken.rps)
            cpu["open"].append(taken.cpu_us_per_request)
            clients.stop()
            clients = None
            print(
                f"  [{backend} {round_ + 1}/{options.rounds}] createIssue: none "
                f"{rates['none'][-1]:,.0f}/s, {STREAMS:,} streams open {rates['open'][-1]:,.0f}/s"
            )
        none, opened = statistics.median(rates["none"]), statistics.median(rates["open"])
        result["throughput"] = {
            "none_rps": none,
            "open_rps": opened,
            "ratio": opened / none,
            "rounds": rates,
            "cpu_us_per_request": {k: statistics.median(v) for k, v in cpu.items()},
        }
        result["settings"] = {
            "backend": backend,
            "streams": STREAMS,
            "keys": len(keys),
            "latency_rate": options.stream_rate,
            "latency_seconds": LATENCY_SECONDS,
            "rounds": options.rounds,
            "seconds": options.seconds,
            "warmup": options.warmup,
            "connections": options.connections,
        }
        _print(backend, result)
        return result
    finally:
        if clients is not None:
            clients.kill()
        server.stop()


def _latency_and_memory(
    server: Server, clients: StreamClients, streamed: Requests, rss_before: int, rate: float
) -> dict[str, Any]:
    """createIssue at `rate` a second (each makes one or two events, each sent to every
    stream) into the streamed workspace, and what arrived."""
    rss_open = _settled_rss(server)
    clients.mark()
    cpu_before = server.cpu_seconds()
    sent = steady_load(server.url, streamed, rate, LATENCY_SECONDS)
    time.sleep(2)  # the last events reach every stream
    cpu_used = server.cpu_seconds() - cpu_before
    arrivals = clients.figures()
    delays = arrivals["delays_ms"]
    events = arrivals["events"]
    return {
        "opened_in_seconds": clients.opened_in,
        "latency": {
            "createIssue_sent": sent.sent,
            "createIssue_errors": sent.errors,
            "events": events,
            "arrivals": len(delays),
            "expected_arrivals": events * STREAMS,
            "streams_short": sum(1 for count in arrivals["per_stream"] if count < events),
            "p50_ms": percentile(delays, 0.50),
            "p95_ms": percentile(delays, 0.95),
            "max_ms": max(delays) if delays else None,
            "worker_cpu_us_per_event_per_stream": cpu_used * 1e6 / max(1, events * STREAMS),
        },
        "memory": {
            "rss_before_mb": rss_before / 2**20,
            "rss_open_mb": rss_open / 2**20,
            "per_stream_kb": (rss_open - rss_before) / STREAMS / 1024,
        },
    }


def _print(backend: str, result: dict[str, Any]) -> None:
    latency, memory, throughput = result["latency"], result["memory"], result["throughput"]
    print(
        f"\n== {backend}: {STREAMS:,} streams on one worker (opened in "
        f"{result['opened_in_seconds']:.1f} s)\n"
        f"  createIssue at {result['settings']['latency_rate']:g}/s: "
        f"{latency['createIssue_errors']} of {latency['createIssue_sent']} failed\n"
        f"  createdAt -> arrival over {latency['events']} events x {STREAMS:,} streams "
        f"({latency['arrivals']:,} of {latency['expected_arrivals']:,} arrivals): "
        f"p50 {latency['p50_ms']:.0f} ms, p95 {latency['p95_ms']:.0f} ms, "
        f"max {latency['max_ms']:.0f} ms; worker CPU "
        f"{latency['worker_cpu_us_per_event_per_stream']:.1f} µs per event per stream\n"
        f"  memory: {memory['rss_before_mb']:.0f} MB before, {memory['rss_open_mb']:.0f} MB "
        f"open: {memory['per_stream_kb']:.1f} KB per stream\n"
        f"  createIssue: {throughput['none_rps']:,.0f}/s with none open, "
        f"{throughput['open_rps']:,.0f}/s with {STREAMS:,}: {throughput['ratio']:.2f}x"
    )
