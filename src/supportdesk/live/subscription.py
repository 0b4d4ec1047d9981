"""One open stream's share of the tailer's fan-out: a bounded buffer of the events it
wants. A reader that falls behind by more than the bound is cut off rather than buffered
without end; it resumes from the last sequence it saw."""

from __future__ import annotations

import asyncio
from collections import deque

from supportdesk.domain.events import Event


class FeedOverflow(Exception):
    """The reader fell too far behind the log; it should reconnect and resume."""


class Subscription:
    def __init__(self, workspace_id: str, types: frozenset[str], capacity: int) -> None:
        self.workspace_id = workspace_id
        self.types = types
        self.capacity = capacity
        self.overflowed = asyncio.Event()
        self._events: deque[Event] = deque()
        self._ready = asyncio.Event()

    def offer(self, event: Event) -> None:
        """From the tailer: an event of the workspace, in sequence order."""
        if event.type not in self.types or self.overflowed.is_set():
            return
        if len(self._events) >= self.capacity:
            self._events.clear()
            self.overflowed.set()
        else:
            self._events.append(event)
        self._ready.set()

    async def take(self) -> list[Event]:
        """The events offered since the last take (waits for one); raises FeedOverflow once
        the buffer ran over."""
        await self._ready.wait()
        if self.overflowed.is_set():
            raise FeedOverflow
        taken = list(self._events)
        self._events.clear()
        self._ready.clear()
        return taken
