"""How evenly do a server's worker processes share connections opened in a burst?

Used to choose the multi-worker server of `supportdesk serve` (docs/deploy.md). Each run
starts a server with 2 workers serving the supportdesk app (a fresh SQLite database), opens
CONNECTIONS keep-alive connections at once, sends REQUESTS requests on each, and counts the
connections each worker process answered (the app adds the worker's pid to every answer).

    .venv/bin/python tools/worker_balance.py [uvicorn|reuseport|granian ...] [--runs 14]

`uvicorn` is uvicorn's own --workers (one shared socket); `reuseport` is what `supportdesk
serve --workers N` does (a socket per worker, SO_REUSEPORT); `granian` needs
`pip install granian` (not a dependency). Prints, per server, the split of every run and how
many runs left a worker without any connection.
"""

from __future__ import annotations

import argparse
import http.client
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONNECTIONS = 8
REQUESTS = 20


def app_with_pid():  # type: ignore[no-untyped-def]
    """The supportdesk app, with the answering worker's pid in `X-Worker-Pid`."""
    from supportdesk.app import create_app

    app = create_app()
    pid = str(os.getpid()).encode()

    async def wrapped(scope, receive, send):  # type: ignore[no-untyped-def]
        async def send_with_pid(message):  # type: ignore[no-untyped-def]
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), (b"x-worker-pid", pid)]
            await send(message)

        await app(scope, receive, send_with_pid)

    return wrapped


def _reuseport_worker(port: int) -> None:
    """One uvicorn process on its own SO_REUSEPORT socket (the kernel spreads connections)."""
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind(("127.0.0.1", port))
    config = uvicorn.Config(
        "tools.worker_balance:app_with_pid", factory=True, log_level="warning", loop="uvloop"
    )
    uvicorn.Server(config).run(sockets=[sock])


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _start(server: str, port: int, env: dict[str, str]) -> list[subprocess.Popen[bytes]]:
    target = "tools.worker_balance:app_with_pid"
    python = sys.executable
    if server == "uvicorn":
        command = [python, "-m", "uvicorn", target, "--factory", "--workers", "2"]
        command += ["--port", str(port), "--log-level", "warning", "--loop", "uvloop"]
        return [subprocess.Popen(command, env=env, cwd=ROOT)]
    if server == "granian":
        command = [python, "-m", "granian", target, "--factory", "--interface", "asgi"]
        command += ["--workers", "2", "--port", str(port), "--log-level", "warning"]
        return [subprocess.Popen(command, env=env, cwd=ROOT)]
    code = f"from tools.worker_balance import _reuseport_worker; _reuseport_worker({port})"
    return [subprocess.Popen([python, "-c", code], env=env, cwd=ROOT) for _ in range(2)]


def _wait_ready(port: int) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=1)
            connection.request("GET", "/healthz")
            if connection.getresponse().status == 200:
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("server did not start")


def _burst(port: int) -> Counter[str]:
    """Open CONNECTIONS connections at once; the worker pid that answered each."""
    barrier = threading.Barrier(CONNECTIONS)
    answered: list[str] = []

    def one() -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        barrier.wait()
        pids = set()
        for _ in range(REQUESTS):
            connection.request("GET", "/healthz")
            response = connection.getresponse()
            response.read()
            pids.add(response.getheader("x-worker-pid"))
        connection.close()
        assert len(pids) == 1, pids  # a keep-alive connection stays with its worker
        answered.append(pids.pop())

    threads = [threading.Thread(target=one) for _ in range(CONNECTIONS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return Counter(answered)


def measure(server: str, runs: int) -> list[list[int]]:
    splits = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as folder:
            env = {
                **os.environ,
                "PYTHONPATH": str(ROOT),
                "SUPPORTDESK_DATABASE_URL": f"sqlite:///{folder}/balance.db",
            }
            migrate = [sys.executable, "-m", "supportdesk.cli", "migrate"]
            subprocess.run(migrate, env=env, check=True, capture_output=True)
            port = _free_port()
            processes = _start(server, port, env)
            try:
                _wait_ready(port)
                time.sleep(1)  # every worker up, not only the first
                counts = _burst(port)
            finally:
                for process in processes:
                    process.send_signal(signal.SIGTERM)
                for process in processes:
                    process.wait(timeout=30)
            splits.append(sorted([*counts.values(), 0, 0][:2], reverse=True))
    return splits


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("servers", nargs="*", default=["uvicorn", "reuseport", "granian"])
    parser.add_argument("--runs", type=int, default=14)
    options = parser.parse_args()
    for server in options.servers:
        splits = measure(server, options.runs)
        idle = sum(1 for split in splits if split[1] == 0)
        shown = " ".join(f"{a}/{b}" for a, b in splits)
        print(f"{server:10} {idle:2} of {len(splits)} runs left a worker idle; splits: {shown}")


if __name__ == "__main__":
    main()
