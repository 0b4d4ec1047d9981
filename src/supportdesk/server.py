"""Running the service: `supportdesk serve` (docs/deploy.md).

N worker processes sharing one port (a socket each, SO_REUSEPORT) and one dispatcher
process that delivers the webhooks (dispatch/role.py), under a supervisor that starts
another when one dies, after a pause that grows while they keep dying. Each worker is
stateless: the database holds the data and, with several processes, Redis holds the rate
limits. SIGTERM (or Ctrl-C) stops taking connections, lets the requests in flight finish
(each is bounded by the request time-out), then closes. One worker without a dispatcher
(SUPPORTDESK_WEBHOOK_DISPATCH=false) is served from this process alone.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import logging.config
import multiprocessing
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any, Protocol

from supportdesk.config import Settings
from supportdesk.observability import exposition

APP = "supportdesk.server:served_app"
# uvicorn's exit code for a worker that failed before serving (bad settings, port taken).
STARTUP_FAILURE = 3
logger = logging.getLogger("supportdesk.server")


# Beyond the request time-out: time to write the answer and close the pools.
SHUTDOWN_MARGIN_SECONDS = 5.0


# Young objects collected every this many allocations (CPython's default is 700). The
# collector counts objects, not bytes: memory held by a cycle waits for a collection that
# may be far off, so a request must leave no large cycle behind (graphql/documents.py
# unlinks the parser's tokens; the query's length is bounded).
GC_YOUNG_THRESHOLD = 50_000


def served_app() -> Any:
    """The application as `serve` runs it, in each worker.

    The objects made at start-up (the schema, the table metadata, the imported modules)
    live as long as the worker: frozen, the cyclic garbage collector stops walking them on
    every full collection, and collecting young objects less often leaves it less to do
    per request. Measured on the `issues(first: 50)` read, about a tenth fewer
    instructions (README, Speed)."""
    from supportdesk.app import create_app

    app = create_app()
    gc.collect()
    gc.freeze()
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(GC_YOUNG_THRESHOLD, older, oldest)
    return app


def default_workers() -> int:
    """The cores this process may run on (a container's CPU set, not the host's)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def connections_per_worker(settings: Settings) -> int:
    """The most database connections one worker opens: its Database's pools, each at its
    limit (`Database.limits_of`), and the live stream's signals."""
    from supportdesk.db import Database
    from supportdesk.live.signals import connections_of_signals

    pools = Database.most_connections(settings.database_url, settings.db_pool_size)
    return pools + connections_of_signals(settings.database_url, settings.redis_url)


async def _postgres_connection_limit(settings: Settings) -> int:
    """max_connections less the slots kept for superusers."""
    from sqlalchemy import text

    from supportdesk.db import Database

    db = Database(settings.database_url, pool_size=1)
    try:
        async with db.read() as connection:
            total = int(await connection.scalar(text("SHOW max_connections")))
            reserved = int(await connection.scalar(text("SHOW superuser_reserved_connections")))
    finally:
        await db.dispose()
    return total - reserved


def connection_budget_warning(settings: Settings, workers: int) -> str | None:
    """A warning when this machine's workers and dispatcher alone could exhaust PostgreSQL's
    connections. The dispatcher opens its pools as a worker does."""
    if settings.is_sqlite:
        return None
    each = connections_per_worker(settings)
    processes = workers + settings.webhook_dispatch
    wanted = processes * each
    try:
        limit = asyncio.run(asyncio.wait_for(_postgres_connection_limit(settings), 5))
    except Exception as error:  # the database's readiness is /readyz's business
        return f"Could not read PostgreSQL's max_connections ({type(error).__name__})."
    if wanted <= limit:
        return None
    who = f"{workers} workers"
    if processes > workers:
        who = f"{processes} processes ({who} and a dispatcher)"
    return (
        f"{who} x {each} connections = {wanted}, more than PostgreSQL allows"
        f" ({limit}): lower SUPPORTDESK_DB_POOL_SIZE or --workers, or raise max_connections"
        " (docs/deploy.md)."
    )


def proxy_options(settings: Settings) -> dict[str, Any]:
    """Whose X-Forwarded-For and X-Forwarded-Proto uvicorn believes: SUPPORTDESK_TRUSTED_PROXIES,
    and nobody when it is empty. Given explicitly, so uvicorn never falls back on its own
    FORWARDED_ALLOW_IPS, 127.0.0.1 by default: any process on this machine could then pick
    its client address, and with it escape the per-address limits."""
    trusted = list(settings.trusted_proxies)
    return {"proxy_headers": bool(trusted), "forwarded_allow_ips": trusted}


def _uvicorn_options(settings: Settings) -> dict[str, Any]:
    from supportdesk.logs import logging_config

    return {
        "factory": True,
        "loop": "uvloop",
        "http": "httptools",
        "access_log": False,  # ours is supportdesk.access, one JSON line per request
        "log_config": logging_config(json_lines=settings.log_json),
        **proxy_options(settings),
        "timeout_graceful_shutdown": int(
            settings.request_timeout_seconds + SHUTDOWN_MARGIN_SECONDS
        ),
    }


def serve(settings: Settings, host: str, port: int, workers: int) -> None:
    """Serve until SIGTERM or SIGINT; in-flight requests finish first."""
    options = _uvicorn_options(settings)
    if workers == 1 and not settings.webhook_dispatch:
        import uvicorn

        stop_metrics = _serve_metrics(host, settings.metrics_port)
        try:
            server = stopping_server(uvicorn.Config(APP, host=host, port=port, **options))
            server.run()
        finally:
            stop_metrics()
        if not server.started:
            sys.exit(STARTUP_FAILURE)
        return
    logging.config.dictConfig(options["log_config"])
    metrics = exposition.metrics_enabled(settings)
    supervisor = Supervisor(
        host, port, workers, options, metrics, settings.metrics_port, settings.webhook_dispatch
    )
    sys.exit(supervisor.run())


def _serve_metrics(host: str, port: int | None) -> Callable[[], None]:
    """Serves the metrics port (SUPPORTDESK_METRICS_PORT), if any, from this process;
    returns its stop."""
    if port is None:
        return lambda: None
    try:
        return exposition.serve_metrics(host, port)
    except OSError as error:
        logger.error("The metrics port %s could not be bound: %s", port, error)
        sys.exit(STARTUP_FAILURE)


def _address(host: str, port: int) -> tuple[socket.AddressFamily, Any]:
    family, _, _, _, address = socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )[0]
    return family, address


def stopping_server(config: Any) -> Any:
    """A uvicorn server whose SIGTERM also ends the open event streams: they never end by
    themselves, and its graceful shutdown would wait for them until its time-out."""
    import uvicorn

    from supportdesk.live import shutdown

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: Any) -> None:
            shutdown.begin()
            super().handle_exit(sig, frame)

    return Server(config)


class PortUnavailable(Exception):
    """The address `serve` was asked to listen on is taken or not ours to bind."""


def _ensure_port_is_free(host: str, port: int) -> None:
    """Binding without SO_REUSEPORT fails while anything holds the port, even workers of
    another `serve` that SO_REUSEPORT would silently let ours join."""
    family, address = _address(host, port)
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as error:
            raise PortUnavailable(
                f"Cannot listen on {host}:{port}: {error.strerror or error}. Is another server"
                " running there? Stop it, or choose another port (--port; PORT=… for make run)."
            ) from None


LISTEN_BACKLOG = 2048  # uvicorn's default


def _exit_with(supervisor: int) -> None:
    """A worker whose supervisor died stops (gracefully) instead of serving on, orphaned.
    Its parent is the fork server, which outlives the supervisor as long as workers hold
    its pipe: the supervisor itself is watched, through a process descriptor on Linux
    (readable once the process has exited), elsewhere by looking once a second."""
    if hasattr(os, "pidfd_open"):
        with contextlib.suppress(ProcessLookupError):
            select.select([os.pidfd_open(supervisor)], [], [])
    else:
        with contextlib.suppress(ProcessLookupError):
            while True:
                os.kill(supervisor, 0)
                time.sleep(1)
    os.kill(os.getpid(), signal.SIGTERM)


def _worker(host: str, port: int, options: dict[str, Any], supervisor: int) -> None:
    """One worker process: uvicorn on a socket of its own, bound to the shared port with
    SO_REUSEPORT, so the kernel spreads new connections evenly over the workers."""
    import uvicorn

    family, address = _address(host, port)
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind(address)
    # Listen at once: a socket of the SO_REUSEPORT group that is bound but not yet listening
    # (uvicorn listens only after the app's start-up) can be handed new connections, which
    # are then refused. Listening early, they wait in the backlog until the worker accepts.
    sock.listen(LISTEN_BACKLOG)
    threading.Thread(target=_exit_with, args=(supervisor,), daemon=True).start()
    server = stopping_server(uvicorn.Config(APP, host=host, port=port, **options))
    server.run(sockets=[sock])
    if not server.started:
        sys.exit(STARTUP_FAILURE)


# What the fork server imports before it forks the first worker: the command, the server
# and the application with everything it imports.
PRELOADED = ["__main__", "supportdesk.server", "supportdesk.app", "uvicorn"]

# A dead child is started again after FIRST_PAUSE, then twice as long each time it dies
# again, up to MOST_PAUSE; one that had lived STEADY_SECONDS starts from FIRST_PAUSE again.
FIRST_PAUSE = 0.5
MOST_PAUSE = 30.0
STEADY_SECONDS = 60.0
# Beyond the workers' graceful shutdown, how long the supervisor waits for its children
# before it kills those still there.
STOP_MARGIN_SECONDS = 10.0


class _Process(Protocol):
    """A child as the supervisor sees it: multiprocessing's processes, and `_Command`."""

    @property
    def pid(self) -> int | None: ...
    @property
    def exitcode(self) -> int | None: ...
    def is_alive(self) -> bool: ...
    def join(self, timeout: float | None = None) -> None: ...
    def kill(self) -> None: ...


class _Command:
    """A child started as a command line: the dispatcher (`ps` shows it as one)."""

    def __init__(self, arguments: list[str]) -> None:
        self._popen = subprocess.Popen(arguments)  # noqa: S603 (our own command line)

    @property
    def pid(self) -> int | None:
        return self._popen.pid

    @property
    def exitcode(self) -> int | None:
        return self._popen.poll()

    def is_alive(self) -> bool:
        return self._popen.poll() is None

    def join(self, timeout: float | None = None) -> None:
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._popen.wait(timeout)

    def kill(self) -> None:
        self._popen.kill()


@dataclass
class _Child:
    """A process the supervisor keeps running: what it is, how it is started, and when it is
    to be started again."""

    role: str
    spawn: Callable[[], _Process]
    process: _Process | None = None
    started: float = 0.0
    pause: float = FIRST_PAUSE
    restart_at: float | None = None

    def start(self) -> None:
        self.process = self.spawn()
        self.started = time.monotonic()
        self.restart_at = None


class Supervisor:
    """Starts the workers and the dispatcher, starts another when one dies, and on SIGTERM
    or SIGINT asks each to finish its work and waits for them all, for a bounded time.

    Why not uvicorn's own `--workers`: its workers share one listening socket, and a burst of
    new connections often lands on one worker; a socket per worker spread them evenly in
    every run measured (docs/deploy.md).

    With metrics on, the workers and the dispatcher write them to a directory of this run,
    and the metrics port is served here, summing them all (observability/exposition.py)."""

    CHECK_SECONDS = 0.2

    def __init__(
        self,
        host: str,
        port: int,
        workers: int,
        options: dict[str, Any],
        metrics: bool = False,
        metrics_port: int | None = None,
        dispatcher: bool = True,
    ) -> None:
        self.host, self.port, self.count, self.options = host, port, workers, options
        self.metrics, self.metrics_port = metrics, metrics_port
        self.dispatcher = dispatcher
        self._stop = threading.Event()
        # Workers are forked from a server process that imported the application once:
        # each starts in a fraction of a second instead of importing it again, and they
        # share its pages.
        self._context = multiprocessing.get_context("forkserver")
        self._context.set_forkserver_preload(PRELOADED)
        graceful = float(options.get("timeout_graceful_shutdown") or 0)
        self.stop_seconds = graceful + STOP_MARGIN_SECONDS

    def _spawn_worker(self) -> _Process:
        process = self._context.Process(
            target=_worker, args=(self.host, self.port, self.options, os.getpid())
        )
        process.start()
        return process

    def _spawn_dispatcher(self) -> _Process:
        return _Command([sys.executable, "-m", "supportdesk.dispatch.role", str(os.getpid())])

    def run(self) -> int:
        """Serve until told to stop; the exit code for the command."""
        _ensure_port_is_free(self.host, self.port)
        with ExitStack() as stack:
            if self.metrics:
                stack.enter_context(exposition.worker_metrics_directory())
            stack.callback(_serve_metrics(self.host, self.metrics_port))
            return self._supervise()

    def _supervise(self) -> int:
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, lambda *_: self._stop.set())
        children = [_Child("worker", self._spawn_worker) for _ in range(self.count)]
        if self.dispatcher:
            children.append(_Child("dispatcher", self._spawn_dispatcher))
        for child in children:
            child.start()
        status = 0
        while not self._stop.wait(self.CHECK_SECONDS):
            if any(self._tend(child) for child in children):
                logger.error("A worker could not start; stopping (see the error above).")
                status = STARTUP_FAILURE
                break
        self._stop_all([child.process for child in children if child.process is not None])
        return status

    def _tend(self, child: _Child) -> bool:
        """Start a dead child again when its pause is over; True when a worker could not
        start at all (serving stops)."""
        moment = time.monotonic()
        if child.restart_at is not None:
            if moment >= child.restart_at:
                child.start()
            return False
        process = child.process
        if process is None or process.is_alive():
            return False
        if child.role == "worker" and process.exitcode == STARTUP_FAILURE:
            return True
        if moment - child.started >= STEADY_SECONDS:
            child.pause = FIRST_PAUSE
        logger.warning(
            "The %s %s died (exit code %s); starting another in %g s.",
            child.role,
            process.pid,
            process.exitcode,
            child.pause,
        )
        if self.metrics and process.pid is not None:
            exposition.forget_worker(process.pid)
        child.restart_at = moment + child.pause
        child.pause = min(child.pause * 2, MOST_PAUSE)
        return False

    def _stop_all(self, processes: list[_Process]) -> None:
        """SIGTERM to each, then wait for them all until `stop_seconds` have passed; one
        still there then is killed."""
        running = [p for p in processes if p.is_alive() and p.pid is not None]
        for process in running:
            assert process.pid is not None
            with contextlib.suppress(ProcessLookupError):
                os.kill(process.pid, signal.SIGTERM)
        deadline = time.monotonic() + self.stop_seconds
        for process in running:
            process.join(max(0.0, deadline - time.monotonic()))
        for process in running:
            if process.is_alive():
                logger.warning("Process %s did not stop in time; killing it.", process.pid)
                process.kill()
                process.join(5)
