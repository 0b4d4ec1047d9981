"""A serve process's dispatcher, on an event loop of its own in a thread of the process.

On the serve loop, deliveries starved under load: each step of an attempt (its request
written, its answer read, its place given to the next) waits for a turn of the loop, and a
loop busy with dozens of requests turns some 30 times a second. One saturated process sent
about 50 deliveries a second while its requests queued 900, and the rest left only when
the load stopped. On a loop of its own an attempt waits for nothing but its receiver and
the GIL, which a busy thread gives up at its next database or network call and at the
latest every 5 ms (sys.getswitchinterval). The database work, a statement or a transaction
per batch of deliveries, still runs on the serve loop, whose connections it uses
(database_loop.py); commits there hand their deliveries over as before (wake is
thread-safe)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading

from supportdesk.auth.server_key import ServerKey
from supportdesk.config import Settings
from supportdesk.db import Database
from supportdesk.dispatch.database_loop import DatabaseLoop
from supportdesk.dispatch.dispatcher import STOP_GRACE_SECONDS, Dispatcher
from supportdesk.observability.metrics import DeliveryMetrics


class DispatcherThread:
    """A `Dispatcher` for `db` (of the loop that calls `start`), run on a loop of the same
    kind (uvloop under serve) in a thread of its own, from `start()` until `stop()`."""

    def __init__(
        self,
        db: Database,
        settings: Settings,
        server_key: ServerKey,
        *,
        metrics: DeliveryMetrics | None = None,
    ) -> None:
        self._db = db
        self._settings = settings
        self._server_key = server_key
        self._metrics = metrics
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._dispatcher: Dispatcher | None = None
        self._database_loop: DatabaseLoop | None = None

    async def start(self) -> None:
        serving = asyncio.get_running_loop()
        self._database_loop = DatabaseLoop(serving)
        started: concurrent.futures.Future[None] = concurrent.futures.Future()
        self._thread = threading.Thread(
            target=self._run, args=(serving, started), name="webhook dispatcher", daemon=True
        )
        self._thread.start()
        await asyncio.wrap_future(started)

    def _run(
        self, serving: asyncio.AbstractEventLoop, started: concurrent.futures.Future[None]
    ) -> None:
        loop: asyncio.AbstractEventLoop | None = None
        try:
            loop = type(serving)()  # uvloop's Loop and asyncio's loops take no arguments
            asyncio.set_event_loop(loop)
            dispatcher = Dispatcher(
                self._db,
                self._settings,
                self._server_key,
                metrics=self._metrics,
                database_loop=self._database_loop,
            )
            loop.run_until_complete(dispatcher.start())
        except BaseException as error:
            if loop is not None:
                loop.close()
            if started.set_running_or_notify_cancel():
                started.set_exception(error)
            return
        if not started.set_running_or_notify_cancel():  # the serve process stopped starting
            loop.run_until_complete(dispatcher.stop())
            loop.close()
            return
        self._loop, self._dispatcher = loop, dispatcher
        started.set_result(None)
        try:
            loop.run_forever()  # until stop() has stopped the dispatcher
            loop.run_until_complete(loop.shutdown_asyncgens())
        finally:
            loop.close()

    async def stop(self, grace: float = STOP_GRACE_SECONDS) -> None:
        """As `Dispatcher.stop`: attempts in flight get `grace` seconds; then the thread ends,
        and the database work it handed over has ended too (the database may be closed)."""
        loop, dispatcher, thread = self._loop, self._dispatcher, self._thread
        self._loop = self._dispatcher = self._thread = None
        if loop is None or dispatcher is None or thread is None or loop.is_closed():
            return  # never started, stopped already, or its loop ended
        try:
            stopping = asyncio.run_coroutine_threadsafe(dispatcher.stop(grace), loop)
            await asyncio.wrap_future(stopping)
        finally:
            if not loop.is_closed():
                loop.call_soon_threadsafe(loop.stop)
            await asyncio.get_running_loop().run_in_executor(None, thread.join, grace)
            if self._database_loop is not None:
                await self._database_loop.settle(grace)
