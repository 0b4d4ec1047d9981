"""Driving a server with wrk: a Lua script cycles through the scenario's requests (POST
bodies to /graphql, or the GETs of a page) and
reports requests, latency percentiles and errors as one JSON line; the server's CPU time
(and PostgreSQL's) is read before and after."""

from __future__ import annotations

import json
import subprocess
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from bench.scenarios import Requests
from bench.servers import Server, cpu_seconds, postgres_pids

# Fair to every server, PostGraphile's V8 above all (its CPU per request falls about
# threefold over its first seconds of load): each server is warmed with each document it
# is sent for WARM_UP_SECONDS before any measured round, and no round is shorter than
# ROUND_SECONDS. A run that skimps on either (--warmup, --seconds) reports no ratio to
# PostGraphile.
WARM_UP_SECONDS = 10
ROUND_SECONDS = 5

LUA = r"""
local requests = {}
local count = 0
local position = 0

function init(args)
  local headers = {}
  for line in io.lines(args[1]) do
    local name, value = line:match("^([^:]+): (.*)$")
    headers[name] = value
  end
  for line in io.lines(args[2]) do
    local method, path, body = line:match("^(%S+) (%S+) (.*)$")
    if body == "" then body = nil end
    count = count + 1
    requests[count] = wrk.format(method, path, headers, body)
  end
  -- Threads start at different places so they do not march in step.
  position = math.random(count) - 1
end

function request()
  position = position % count + 1
  return requests[position]
end

function done(summary, latency, requests)
  local errors = summary.errors
  io.write(string.format(
    '{"requests": %d, "duration_us": %d, "p50_us": %d, "p99_us": %d, "non2xx": %d, ' ..
    '"socket_errors": %d}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    errors.status, errors.connect + errors.read + errors.write + errors.timeout))
end
"""


@dataclass(frozen=True)
class Measurement:
    server: str
    scenario: str
    round: int
    requests: int
    seconds: float
    rps: float
    p50_ms: float
    p99_ms: float
    errors: int
    cpu_us_per_request: float
    db_cpu_us_per_request: float | None
    backend: str = ""

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


@dataclass(frozen=True)
class LoadSettings:
    wrk: str
    seconds: int
    connections: int = 32
    threads: int = 1


class Driver:
    def __init__(self, settings: LoadSettings, count_postgres: bool) -> None:
        self.settings = settings
        self.count_postgres = count_postgres
        self.folder = Path(tempfile.mkdtemp(prefix="supportdesk-bench-"))
        self.script = self.folder / "bodies.lua"
        self.script.write_text(LUA)

    def _database_cpu(self) -> dict[int, float]:
        """CPU seconds of each PostgreSQL process now. Compared per process: a backend that
        starts during a run counts from zero, and one that ends is not subtracted."""
        if not self.count_postgres:
            return {}
        return {pid: cpu_seconds([pid]) for pid in postgres_pids()}

    def _files(self, requests: Requests) -> tuple[Path, Path]:
        headers = self.folder / "headers.txt"
        bodies = self.folder / "bodies.txt"
        headers.write_text("".join(f"{k}: {v}\n" for k, v in requests.headers.items()))
        bodies.write_bytes(b"".join(line + b"\n" for line in requests.lines))
        return headers, bodies

    def run(
        self,
        server: Server,
        scenario: str,
        requests: Requests,
        round_: int,
        seconds: int | None = None,
    ) -> Measurement:
        headers, bodies = self._files(requests)
        duration = seconds or self.settings.seconds
        command = [
            self.settings.wrk,
            f"-t{self.settings.threads}",
            f"-c{self.settings.connections}",
            f"-d{duration}s",
            "--timeout",
            "10s",
            "-s",
            str(self.script),
            server.url + "/graphql",
            "--",
            str(headers),
            str(bodies),
        ]
        pids = server.pids()
        db_before = self._database_cpu()
        cpu_before = cpu_seconds(pids)
        finished = subprocess.run(command, capture_output=True, text=True, timeout=duration + 60)
        cpu_after = cpu_seconds(pids)
        db_used = sum(used - db_before.get(pid, 0.0) for pid, used in self._database_cpu().items())
        if finished.returncode != 0:
            raise RuntimeError(f"wrk failed: {finished.stderr or finished.stdout}")
        summary = json.loads(finished.stdout.strip().splitlines()[-1])
        done = max(1, summary["requests"])
        seconds_taken = summary["duration_us"] / 1e6
        return Measurement(
            server=server.name,
            scenario=scenario,
            round=round_,
            requests=summary["requests"],
            seconds=seconds_taken,
            rps=summary["requests"] / seconds_taken,
            p50_ms=summary["p50_us"] / 1000,
            p99_ms=summary["p99_us"] / 1000,
            errors=summary["non2xx"] + summary["socket_errors"],
            cpu_us_per_request=(cpu_after - cpu_before) * 1e6 / done,
            db_cpu_us_per_request=db_used * 1e6 / done if self.count_postgres else None,
        )
