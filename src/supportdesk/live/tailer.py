"""One reader of the event log per process, for every open stream in it.

On each wake-up (a commit in this process, another process's signal, or the poll) it
reads what is new for every workspace that has open streams in one statement, and hands
each event to those streams' subscriptions. The log is the source of truth: a wake-up
lost costs at most one poll interval. Sequences commit in order per workspace
(domain/events/log.py), so a workspace's position is simply the last sequence read."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging

from supportdesk.db import Database
from supportdesk.domain.events import Event
from supportdesk.domain.events.tail import events_after_each, last_sequences
from supportdesk.live.subscription import Subscription

logger = logging.getLogger("supportdesk.live")

# Events read per statement; a longer backlog takes several, in the same wake-up.
BATCH = 500
ERROR_PAUSE_SECONDS = 1.0
# How long a wake-up waits for more commits before the log is read.
GATHER_SECONDS = 0.025


class Tailer:
    def __init__(self, db: Database, poll_seconds: float) -> None:
        self._db = db
        self._poll_seconds = poll_seconds
        self._subscriptions: dict[str, set[Subscription]] = {}
        self._positions: dict[str, int] = {}
        self._woken = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def wake(self) -> None:
        """Look at the log now (on the tailer's event loop's thread)."""
        self._woken.set()

    async def subscribe(self, subscription: Subscription) -> None:
        """From now on, every event of its workspace after the tailer's position is offered
        to `subscription`; events before are the subscriber's to read from the log."""
        workspace_id = subscription.workspace_id
        if workspace_id not in self._positions:
            last = (await last_sequences(self._db, [workspace_id])).get(workspace_id, 0)
            self._positions.setdefault(workspace_id, last)
        self._subscriptions.setdefault(workspace_id, set()).add(subscription)
        self._start()

    def unsubscribe(self, subscription: Subscription) -> None:
        workspace_id = subscription.workspace_id
        subscriptions = self._subscriptions.get(workspace_id, set())
        subscriptions.discard(subscription)
        if not subscriptions:
            self._subscriptions.pop(workspace_id, None)
            self._positions.pop(workspace_id, None)

    def _start(self) -> None:
        if self._task is None or self._task.done():
            # A context of its own: none of the first subscriber's request (its deadline).
            self._task = asyncio.create_task(
                self._run(), name="event tailer", context=contextvars.Context()
            )

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _run(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._woken.wait(), self._poll_seconds)
            self._woken.clear()
            # What commits within a moment of the wake-up (a write's several transactions,
            # other writers' commits) is read and sent with it: each open stream costs the
            # process one write per read, whatever the number of events in it.
            await asyncio.sleep(GATHER_SECONDS)
            try:
                while self._positions and await self._read() == BATCH:
                    pass
            except Exception:
                logger.exception("reading the event log for live streams failed")
                await asyncio.sleep(ERROR_PAUSE_SECONDS)

    async def _read(self) -> int:
        """One statement for every workspace followed; returns how many events it read."""
        read = await events_after_each(self._db, dict(self._positions), BATCH)
        for event in read:
            self._hand_out(event)
        return len(read)

    def _hand_out(self, event: Event) -> None:
        position = self._positions.get(event.workspace_id)
        if position is None or event.sequence <= position:
            return  # no stream of its workspace is left, or it was read already
        self._positions[event.workspace_id] = event.sequence
        for subscription in tuple(self._subscriptions.get(event.workspace_id, ())):
            subscription.offer(event)
