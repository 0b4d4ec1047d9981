"""`supportdesk` as an operator runs it: CLI commands and `serve` processes, each a real
subprocess on a port of its own. Every one of them records its SQL statements for the
tenancy check (tests/tracing/sitecustomize.py)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from tests.tenancy import SUBPROCESS_STATEMENTS

SUPPORTDESK = Path(sys.executable).parent / "supportdesk"
# How the dispatcher `serve` starts is named on its command line.
DISPATCHER = b"supportdesk.dispatch.role"
# The supervisor's workers are the children of multiprocessing's fork server.
FORK_SERVER = b"multiprocessing.forkserver"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def command_env(**settings: str) -> dict[str, str]:
    """This environment without the developer's SUPPORTDESK_* settings, plus `settings`
    (e.g. database_url="…" becomes SUPPORTDESK_DATABASE_URL), with statement tracing."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SUPPORTDESK_")}
    env["SUPPORTDESK_TEST_FAST_PASSWORD_HASHES"] = "1"
    env.update({f"SUPPORTDESK_{name.upper()}": value for name, value in settings.items()})
    return SUBPROCESS_STATEMENTS.traced(env)


def run_cli(env: dict[str, str], *arguments: str) -> str:
    """Run `supportdesk …`; its standard output (fails the test on a non-zero exit)."""
    done = subprocess.run(
        [str(SUPPORTDESK), *arguments],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, f"supportdesk {' '.join(arguments)}:\n{done.stderr}"
    return done.stdout


def _command_line(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except FileNotFoundError:
        return b""


def _children(pid: int) -> list[int]:
    children = Path(f"/proc/{pid}/task/{pid}/children")
    try:
        return [int(child) for child in children.read_text().split()]
    except FileNotFoundError:
        return []


class ServeProcess:
    """`supportdesk serve --port P --workers N [arguments]` on a free port P; its stderr goes
    to a file."""

    def __init__(
        self, env: dict[str, str], workers: int = 1, arguments: tuple[str, ...] = ()
    ) -> None:
        self.env = env
        self.workers = workers
        self.arguments = arguments
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        descriptor, name = tempfile.mkstemp(prefix="supportdesk-serve-", suffix=".log")
        os.close(descriptor)
        self.stderr_path = Path(name)
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> ServeProcess:
        command = [str(SUPPORTDESK), "serve", "--port", str(self.port)]
        command += ["--workers", str(self.workers), *self.arguments]
        with self.stderr_path.open("ab") as stderr:
            self.process = subprocess.Popen(
                command,
                env=self.env,
                stdout=subprocess.DEVNULL,
                stderr=stderr,
                start_new_session=True,  # its own process group, so cleanup reaches its workers
            )
        return self

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    @property
    def stderr(self) -> str:
        return self.stderr_path.read_text(errors="replace")

    def json_lines(self) -> list[dict[str, Any]]:
        """Its JSON log lines so far, whole lines only: a worker may be writing the last one
        as it is read."""
        written = self.stderr
        written = written[: written.rfind("\n") + 1]
        return [json.loads(line) for line in written.splitlines() if line.startswith("{")]

    def wait_ready(self, timeout: float = 60) -> ServeProcess:
        """Until /readyz answers 200 (fails with the server's stderr if it exits first)."""
        deadline = time.monotonic() + timeout
        while True:
            assert self.process is not None and self.process.poll() is None, self.stderr
            try:
                if httpx.get(f"{self.base_url}/readyz", timeout=2).status_code == 200:
                    return self
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, f"not ready after {timeout} s:\n{self.stderr}"
            time.sleep(0.05)

    def worker_pids(self) -> list[int]:
        """The worker processes of a supervisor (`--workers` > 1): the children of the fork
        server it starts; not multiprocessing's resource tracker, nor the dispatcher."""
        servers = [pid for pid in _children(self.pid) if FORK_SERVER in _command_line(pid)]
        return [pid for server in servers for pid in _children(server)]

    def dispatcher_pids(self) -> list[int]:
        """The supervisor's dispatcher process (a list: none, or one)."""
        return [pid for pid in _children(self.pid) if DISPATCHER in _command_line(pid)]

    def kill(self) -> None:
        """SIGKILL to it and its children (workers, dispatcher), as a crash: no clean-up of
        any kind."""
        assert self.process is not None
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)

    def terminate(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGTERM)

    def stop(self, timeout: float = 30) -> int | None:
        """SIGTERM and wait; SIGKILL the whole group if it does not stop in time."""
        if self.process is None:
            return None
        if self.process.poll() is None:
            self.terminate()
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)
            raise
        finally:
            self.stderr_path.unlink(missing_ok=True)
