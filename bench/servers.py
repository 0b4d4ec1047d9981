"""The servers under test, started as a user would start them, and their CPU time.

- ours: `supportdesk serve --workers N` (uvicorn, uvloop, httptools; N = cores);
- the floor: `python -m bench.floor` with the same uvicorn settings;
- PostGraphile 5 on Node 22, from bench/.tools/ (see `tools.py`), on as many Node processes
  as ours has workers (`graphile.cluster.mjs`);
- for the webhook figures: the receiver (`bench/receiver.py`), and `supportdesk dispatch`
  beside a `serve` whose own dispatcher is off.

Only `ours` dispatches webhooks: ours+metrics and the dispatch-less serve run with
SUPPORTDESK_WEBHOOK_DISPATCH=false, so no other process takes (and spends CPU on) the
deliveries ours queues while it is measured.

CPU is read from /proc/<pid>/stat (utime + stime) of the server's whole process tree, so
the supervisor, every worker and serve's dispatcher process count.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import httpx

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
TICKS = os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def stat_fields(path: Path) -> list[str] | None:
    """The fields of a /proc stat file (a process's or a thread's) after the command name,
    or None when the process or thread has ended."""
    try:
        text = path.read_text()
    except OSError:
        return None
    # The command name may hold spaces and parentheses; the fields follow the last ')'.
    return text[text.rindex(")") + 2 :].split()


def _stat_fields(pid: int) -> list[str] | None:
    return stat_fields(Path(f"/proc/{pid}/stat"))


def process_tree(pid: int) -> list[int]:
    """`pid` and its descendants, from each process's parent in /proc/<pid>/stat."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            fields = _stat_fields(int(entry.name))
            if fields is not None:
                children.setdefault(int(fields[1]), []).append(int(entry.name))
    tree, queue = [], [pid]
    while queue:
        current = queue.pop()
        tree.append(current)
        queue.extend(children.get(current, []))
    return tree


def cpu_seconds(pids: Sequence[int]) -> float:
    """utime + stime of these processes, in seconds."""
    return sum(user_and_system_seconds(pids))


def user_and_system_seconds(pids: Sequence[int]) -> tuple[float, float]:
    """utime and stime of these processes, in seconds (fields 14 and 15 of stat)."""
    user = system = 0
    for pid in pids:
        fields = _stat_fields(pid)
        if fields is not None:
            user += int(fields[11])
            system += int(fields[12])
    return user / TICKS, system / TICKS


def postgres_pids() -> list[int]:
    """Every PostgreSQL server process on this machine (its backends do the SQL)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "comm").read_text().strip() == "postgres":
                    pids.append(int(entry.name))
            except OSError:
                continue
    return pids


@dataclass
class Server:
    """A server process (and its children) on a local port."""

    name: str
    command: list[str]
    port: int
    env: dict[str, str] = field(default_factory=dict)
    cwd: Path = ROOT
    ready_path: str | None = "/healthz"  # None: ready once `ready_text` is in its log
    ready_text: str = ""
    process: subprocess.Popen[bytes] | None = None
    log_path: Path | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, log_folder: Path, timeout: float = 60) -> Server:
        log_folder.mkdir(parents=True, exist_ok=True)
        self.log_path = log_folder / f"{self.name}.log"
        log = self.log_path.open("wb")
        self.process = subprocess.Popen(
            self.command,
            cwd=self.cwd,
            env={**os.environ, **self.env},
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self._wait_ready(timeout)
        return self

    def _wait_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        assert self.process is not None
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.name} exited; see {self.log_path}")
            try:
                if self._ready():
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"{self.name} did not start in {timeout:.0f} s; see {self.log_path}")

    def _ready(self) -> bool:
        if self.ready_path is None:
            assert self.log_path is not None
            return self.ready_text.encode() in self.log_path.read_bytes()
        if self.ready_path == "/graphql":
            answer = httpx.post(self.url + "/graphql", json={"query": "{__typename}"}, timeout=2)
        else:
            answer = httpx.get(self.url + self.ready_path, timeout=2)
        return answer.status_code == 200

    def pids(self) -> list[int]:
        assert self.process is not None
        return process_tree(self.process.pid)

    def cpu_seconds(self) -> float:
        return cpu_seconds(self.pids())

    def stop(self) -> None:
        """End the process group this server was started in (ours alone), then wait."""
        if self.process is None or self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=5)


def bench_env() -> dict[str, str]:
    """Settings for the server under load: limits meant for clients would throttle the bench."""
    return {
        "SUPPORTDESK_RATE_LIMIT_PER_MINUTE": str(10**9),
        "SUPPORTDESK_FAILED_AUTH_PER_MINUTE": str(10**9),
        "SUPPORTDESK_LOG_JSON": "false",
        # Shared by ours and the floor, whose cursors must be signed alike.
        "SUPPORTDESK_SECRET_KEY": "bench-server-key",
        # This checkout's code first, whichever checkout the virtualenv was installed from
        # (a git worktree shares the main checkout's); `bench` from here too.
        "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)]),
    }


def _supportdesk() -> str:
    return shutil.which("supportdesk", path=str(Path(sys.executable).parent)) or "supportdesk"


def webhook_env(dispatch: bool) -> dict[str, str]:
    """Webhooks as the bench runs them: to the local receiver (a private address), signed
    under bench_env's SUPPORTDESK_SECRET_KEY, delivered by this process or not."""
    return {
        "SUPPORTDESK_WEBHOOK_DISPATCH": "true" if dispatch else "false",
        "SUPPORTDESK_WEBHOOK_ALLOW_PRIVATE": "true",
    }


def ours(
    database_url: str,
    workers: int,
    *,
    metrics: bool = False,
    dispatch: bool = True,
    name: str | None = None,
    smtp_port: int | None = None,
) -> Server:
    """Ours; with `metrics`, recording Prometheus metrics as an operator would run it;
    `dispatch` is whether serve starts its dispatcher process (it does by default);
    `smtp_port`, where its workers take mail (`serve --smtp-port`)."""
    port = free_port()
    command = [_supportdesk(), "serve", "--host", "127.0.0.1", "--port", str(port)]
    command += ["--workers", str(workers), "--database-url", database_url]
    if smtp_port is not None:
        command += ["--smtp-port", str(smtp_port)]
    env = {**bench_env(), **webhook_env(dispatch)}
    if metrics:
        env["SUPPORTDESK_METRICS"] = "true"
    return Server(name or ("ours+metrics" if metrics else "ours"), command, port, env=env)


def dispatcher(database_url: str) -> Server:
    """`supportdesk dispatch`: delivery alone, for serve processes whose dispatcher is off."""
    command = [_supportdesk(), "dispatch", "--database-url", database_url]
    return Server(
        "dispatch",
        command,
        0,
        env={**bench_env(), **webhook_env(dispatch=True)},
        ready_path=None,
        ready_text="delivering webhooks",
    )


def receiver() -> Server:
    """The webhook receiver (bench/receiver.py), in a process of its own."""
    port = free_port()
    command = [sys.executable, "-m", "bench.receiver", "--port", str(port)]
    return Server("receiver", command, port, env={"PYTHONPATH": str(ROOT)})


def floor(database_url: str, workers: int) -> Server:
    port = free_port()
    command = [sys.executable, "-m", "bench.floor", "--database-url", database_url]
    command += ["--port", str(port), "--workers", str(workers)]
    return Server("floor", command, port, env=bench_env())


# What bench/graphile.cluster.mjs prints once every worker listens.
POSTGRAPHILE_READY = "postgraphile workers listening"


def postgraphile(dsn: str, node: Path, tools: Path, workers: int) -> Server:
    """PostGraphile on `workers` Node processes (node:cluster), as many as ours runs."""
    port = free_port()
    for script in ("graphile.config.mjs", "graphile.cluster.mjs"):
        shutil.copy(BENCH / script, tools / script)
    command = [str(node), str(tools / "graphile.cluster.mjs")]
    env = {
        "BENCH_PG_URL": dsn,
        "BENCH_PORT": str(port),
        "BENCH_POOL_SIZE": "10",  # per worker, as SUPPORTDESK_DB_POOL_SIZE for each of ours
        "BENCH_WORKERS": str(workers),
        "NODE_ENV": "production",
        "GRAPHILE_ENV": "production",
    }
    return Server(
        "postgraphile",
        command,
        port,
        env=env,
        cwd=tools,
        ready_path=None,
        ready_text=POSTGRAPHILE_READY,
    )
