"""Serving the metrics: one scrape shows the sum over every worker of `supportdesk serve`.

With several workers, each writes its values to files in a directory of its own run
(prometheus_client's multi-process mode): the supervisor makes the directory, names it in
PROMETHEUS_MULTIPROC_DIR (the fork server it starts, and the workers forked from it, inherit
its environment), forgets the live gauges of a worker that died, and removes the directory
when it stops. A scrape, on the supervisor's metrics port or on any worker's /metrics, reads
all the files. One process without that variable keeps its values in memory.

Nothing here asks for a key: the metrics port and /metrics must stay off public networks.
"""

from __future__ import annotations

import glob
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager

from prometheus_client import REGISTRY, CollectorRegistry, start_http_server
from prometheus_client.exposition import choose_encoder
from prometheus_client.metrics_core import Metric
from prometheus_client.multiprocess import MultiProcessCollector, mark_process_dead

from supportdesk.config import Settings

MULTIPROCESS_DIRECTORY = "PROMETHEUS_MULTIPROC_DIR"


def metrics_enabled(settings: Settings) -> bool:
    """Whether anyone can read the metrics, so whether they are worth recording."""
    return settings.metrics or settings.metrics_port is not None


class WorkerFiles:
    """Every worker's metric files, summed as prometheus_client's MultiProcessCollector sums
    them, less the files still empty. A worker creates its file and sizes it a moment later
    (prometheus/client_python#1199); read in that moment, the file failed the whole scrape
    (a 500, seen while a worker started). An empty file holds nothing yet."""

    def __init__(self, directory: str) -> None:
        self._directory = directory

    def collect(self) -> Iterable[Metric]:
        found = glob.glob(os.path.join(self._directory, "*.db"))
        filled = [path for path in found if _filled(path)]
        metrics: Iterable[Metric] = MultiProcessCollector.merge(  # type: ignore[no-untyped-call]
            filled, accumulate=True
        )
        return metrics


def _filled(path: str) -> bool:
    try:
        return os.path.getsize(path) > 0
    except OSError:  # gone since the listing: a dead worker's live gauges
        return False


def registry() -> CollectorRegistry:
    """What a scrape reports: every worker's files in multi-process mode, else this process."""
    directory = os.environ.get(MULTIPROCESS_DIRECTORY)
    if not directory:
        return REGISTRY
    workers = CollectorRegistry()
    workers.register(WorkerFiles(directory))
    return workers


def render(accept: str | None) -> tuple[bytes, str]:
    """The scrape's body and content type (the text format, or OpenMetrics if asked for)."""
    encode, content_type = choose_encoder(accept or "")
    return encode(registry()), content_type


@contextmanager
def worker_metrics_directory() -> Iterator[str]:
    """A fresh directory for the workers' metric files, in this process's environment
    (for the workers it starts) while the block runs, then removed."""
    path = tempfile.mkdtemp(prefix="supportdesk-metrics-")
    previous = os.environ.get(MULTIPROCESS_DIRECTORY)
    os.environ[MULTIPROCESS_DIRECTORY] = path
    try:
        yield path
    finally:
        if previous is None:
            os.environ.pop(MULTIPROCESS_DIRECTORY, None)
        else:
            os.environ[MULTIPROCESS_DIRECTORY] = previous
        shutil.rmtree(path, ignore_errors=True)


def forget_worker(pid: int) -> None:
    """A worker died: its live gauges (connections in use) no longer count. Its counters
    stay, so that totals never go back."""
    directory = os.environ.get(MULTIPROCESS_DIRECTORY)
    if directory:
        mark_process_dead(pid, directory)  # type: ignore[no-untyped-call]


def serve_metrics(host: str, port: int) -> Callable[[], None]:
    """Serves the scrape on `host:port` from a thread of this process; returns its stop.
    Raises OSError when the port cannot be bound."""
    server, thread = start_http_server(port, addr=host, registry=registry())

    def stop() -> None:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)

    return stop
