"""A process's live events: its tailer, the signals between processes, the per-key limit
on open streams, and the feeds that readers iterate."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from supportdesk.config import Settings
from supportdesk.db import Database
from supportdesk.live import shutdown
from supportdesk.live.feed import Feed, Reader, open_feed
from supportdesk.live.key_watch import ActiveWatch, KeyWatch
from supportdesk.live.signals import signals_for
from supportdesk.live.slots import StreamSlots, stream_slots
from supportdesk.live.sse import EncodedEvents
from supportdesk.live.tailer import Tailer
from supportdesk.observability.metrics import StreamMetrics

# How often the tailer looks at the log when no signal came: the longest an event waits
# when a signal is lost, or with SQLite's several processes and no Redis.
POLL_SECONDS = 0.5
# How often the process looks whether it is shutting down, for its open streams to end.
SHUTDOWN_CHECK_SECONDS = 0.5


class LiveEvents:
    def __init__(self, db: Database, settings: Settings, metrics: StreamMetrics | None) -> None:
        self.db = db
        self.settings = settings
        self.metrics = metrics
        self.tailer = Tailer(db, POLL_SECONDS)
        self.signals = signals_for(settings.database_url, settings.redis_url)
        self.slots: StreamSlots = stream_slots(
            settings.redis_url, settings.rate_limit_prefix, settings.event_streams_per_key
        )
        self.keys = KeyWatch(db)
        # Other holders of streams than keys, added by the interfaces that serve them.
        self._watches: list[ActiveWatch[Any]] = [self.keys]
        self._started = False
        self.messages = EncodedEvents()
        # Set when the process begins to shut down: every open stream ends then.
        self.stopping = asyncio.Event()
        self._watching_shutdown: asyncio.Task[None] | None = None
        self._listening: asyncio.Task[None] | None = None
        db.after_commit(self._committed)

    def _committed(self) -> None:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return  # a commit outside the service's event loop (none streams there)
        self.tailer.wake()
        self.signals.committed()

    async def start(self) -> None:
        await self.slots.start()
        for watch in self._watches:
            await watch.start()
        self._started = True
        self._watching_shutdown = asyncio.create_task(self._watch_shutdown())
        self._listening = asyncio.create_task(self.signals.listen(self.tailer.wake))

    async def _watch_shutdown(self) -> None:
        while not shutdown.is_stopping():  # noqa: ASYNC110 (set from a signal handler)
            await asyncio.sleep(SHUTDOWN_CHECK_SECONDS)
        self.stopping.set()

    async def stop(self) -> None:
        for task in (self._listening, self._watching_shutdown):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        await self.tailer.stop()
        for watch in self._watches:
            await watch.stop()
        await self.signals.close()
        await self.slots.close()

    def add_watch(self, watch: ActiveWatch[Any]) -> ActiveWatch[Any]:
        """Checks `watch`'s holders as long as the process runs (from its start)."""
        assert not self._started, "watches are added before the process starts"
        self._watches.append(watch)
        return watch

    async def feed(self, principal: Reader, after: int | None, types: frozenset[str]) -> Feed:
        """The events after `after` of `types` (already narrowed to what the reader may
        read), as the reader sees them; InvalidArgument for an `after` past the last event."""
        capacity = self.settings.event_stream_buffer
        return await open_feed(self.db, self.tailer, principal, after, types, capacity)
