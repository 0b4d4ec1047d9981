"""The dispatcher role: a process that delivers webhooks and mail, polls the mailboxes that
have an IMAP URL (imap/poller.py), and serves no requests.

`supportdesk dispatch` runs it alone; `supportdesk serve` starts it beside its workers as
`python -m supportdesk.dispatch.role SUPERVISOR_PID`, and it stops when that supervisor is
gone, as the workers do. SIGTERM or SIGINT stops it: attempts in flight get a few seconds
to finish and be recorded (Dispatcher.stop).

With metrics on, it counts each attempt's outcome and ages the oldest pending deliveries;
under `serve` its figures are summed with the workers' (observability/exposition.py).
"""

from __future__ import annotations

import asyncio
import logging.config
import os
import signal
import sys
from collections.abc import Callable

from supportdesk.auth.server_key import ServerKey
from supportdesk.config import Settings
from supportdesk.db import Database
from supportdesk.dispatch.dispatcher import Dispatcher
from supportdesk.dispatch.mailer import Mailer
from supportdesk.imap.poller import ImapPoller
from supportdesk.observability.exposition import metrics_enabled
from supportdesk.observability.metrics import DeliveryMetrics

# How often a supervised dispatcher looks whether its supervisor is still there.
PARENT_CHECK_SECONDS = 1.0


async def deliver_until(stopped: asyncio.Event, settings: Settings, db: Database) -> None:
    """Deliver with `db` until `stopped` is set; `db` is disposed of at the end."""
    metrics = DeliveryMetrics() if metrics_enabled(settings) else None
    server_key = ServerKey(settings.secret_key, db)
    dispatcher = Dispatcher(db, settings, server_key, metrics=metrics)
    poller = ImapPoller(db, settings, server_key)
    mailer = Mailer(db, settings, server_key)
    try:
        await dispatcher.start()
        mailer.start()
        await poller.start()
        await stopped.wait()
        await poller.stop()
        await mailer.stop()
        await dispatcher.stop()
    finally:
        await db.dispose()


def run(settings: Settings, supervisor: int | None = None) -> None:
    """Deliver until SIGTERM or SIGINT, or until the process `supervisor` is gone."""
    with asyncio.Runner(loop_factory=_loop_factory()) as runner:
        runner.run(_run(settings, supervisor))


async def _run(settings: Settings, supervisor: int | None) -> None:
    stopped = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stopped.set)
    watch = None
    if supervisor is not None:
        watch = asyncio.create_task(_stop_without(supervisor, stopped))
    await deliver_until(stopped, settings, Database(settings.database_url, settings.db_pool_size))
    if watch is not None:
        watch.cancel()


async def _stop_without(supervisor: int, stopped: asyncio.Event) -> None:
    """A dispatcher whose supervisor died stops (gracefully) instead of running on, orphaned."""
    while os.getppid() == supervisor:  # noqa: ASYNC110 (no event says a parent died)
        await asyncio.sleep(PARENT_CHECK_SECONDS)
    stopped.set()


def _loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    # The event loop serve's workers run on (uvicorn picks uvloop).
    try:
        import uvloop
    except ImportError:  # not on Windows
        return None
    return uvloop.new_event_loop


if __name__ == "__main__":
    from supportdesk.logs import logging_config

    served = Settings()
    logging.config.dictConfig(logging_config(json_lines=served.log_json))
    run(served, supervisor=int(sys.argv[1]))
