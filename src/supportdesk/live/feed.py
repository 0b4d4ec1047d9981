"""What one key sees of its workspace's log from a sequence on: the events kept after it,
then the live ones, with no gap and no duplicate (docs/events-stream.md). The SSE route
reads it; so can any other live interface.

    async with live.feed(principal, after, types) as feed:
        async for item in feed:  # Reset first when `after` is older than retention
            ...
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Protocol

from supportdesk.auth.principal import Principal
from supportdesk.db import Database
from supportdesk.domain.errors import InvalidArgument
from supportdesk.domain.events import (
    Event,
    as_seen_by,
    hides_people,
    readable_types,
    unknown_types,
)
from supportdesk.domain.events.tail import events_after, kept_from
from supportdesk.live.subscription import Subscription
from supportdesk.live.tailer import Tailer

# Events read from the log per statement while catching up.
PAGE = 200


class Reader(Protocol):
    """Who reads a feed: a key (its Principal), or anyone else the service lets read a
    workspace's events under some scopes (a member logged in to the inbox)."""

    @property
    def workspace_id(self) -> str: ...

    @property
    def scopes(self) -> frozenset[str]: ...


@dataclass(frozen=True, slots=True)
class Reset:
    """Events after the reader's position were removed by retention: the feed goes on from
    `oldest_sequence`, the oldest one kept."""

    oldest_sequence: int


def visible_types(principal: Principal, wanted: Sequence[str] | None) -> frozenset[str]:
    """The types asked for (all when None) that the key may read; InvalidArgument names
    the unknown ones."""
    readable = readable_types(principal.scopes)
    if wanted is None:
        return frozenset(readable)
    unknown = unknown_types(tuple(wanted))
    if unknown:
        raise InvalidArgument(f"Unknown event types: {', '.join(unknown)}.")
    return frozenset(readable).intersection(wanted)


class Feed:
    """Made by `open_feed`; iterate it inside `async with`, which ends its subscription."""

    def __init__(
        self,
        db: Database,
        tailer: Tailer,
        principal: Reader,
        position: int,
        reset: Reset | None,
        subscription: Subscription,
    ) -> None:
        self._db = db
        self._tailer = tailer
        self._principal = principal
        # Who reads it: the scopes its events are shown under.
        self.reader = principal
        self._position = position
        self._reset = reset
        self.subscription = subscription
        # Whether what comes now is live, not read back from the log.
        self.caught_up = False

    async def __aenter__(self) -> Feed:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._tailer.unsubscribe(self.subscription)

    def __aiter__(self) -> AsyncIterator[Event | Reset]:
        return self._items()

    async def _items(self) -> AsyncIterator[Event | Reset]:
        async for batch in self.batches():
            for item in batch:
                yield item

    async def batches(self) -> AsyncIterator[list[Event | Reset]]:
        """The same items, in lists: a page of the backlog, or every live event that came
        since the reader last asked. A writer sends a list at once, so that a busy
        process's streams cost one write per wake-up, not one per event."""
        if self._reset is not None:
            yield [self._reset]
        # Most of a long backlog is read before the subscription starts, so that live
        # events do not pile up in its bounded buffer meanwhile; what commits between the
        # last page and the subscription is read once more after it.
        async for page in self._backlog():
            yield page
        await self._tailer.subscribe(self.subscription)
        async for page in self._backlog():
            yield page
        self.caught_up = True
        scopes = self._principal.scopes
        narrowed = hides_people(scopes)
        while True:
            fresh: list[Event | Reset] = []
            for event in await self.subscription.take():
                if event.sequence > self._position:
                    self._position = event.sequence
                    fresh.append(as_seen_by(event, scopes) if narrowed else event)
            if fresh:
                yield fresh

    async def _backlog(self) -> AsyncIterator[list[Event | Reset]]:
        types = tuple(self.subscription.types)
        while True:
            page = await events_after(
                self._db, self._principal.workspace_id, self._position, types, PAGE
            )
            if page:
                self._position = page[-1].sequence
                yield [as_seen_by(event, self._principal.scopes) for event in page]
            if len(page) < PAGE:
                return


async def open_feed(
    db: Database,
    tailer: Tailer,
    principal: Reader,
    after: int | None,
    types: frozenset[str],
    capacity: int,
) -> Feed:
    """The feed of events after sequence `after` (None: from now); InvalidArgument when
    `after` is past the workspace's last event. Nothing is subscribed until it is iterated."""
    oldest, last = await kept_from(db, principal.workspace_id)
    if after is None:
        after = last
    elif after > last:
        raise InvalidArgument(
            f"There is no event {after} yet; the last one is {last}.", lastSequence=last
        )
    reset = Reset(oldest) if after + 1 < oldest else None
    position = oldest - 1 if reset is not None else after
    subscription = Subscription(principal.workspace_id, types, capacity)
    return Feed(db, tailer, principal, position, reset, subscription)
