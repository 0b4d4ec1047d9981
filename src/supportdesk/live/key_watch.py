"""Whether the holders of a process's open streams (keys, members' logins) are still
active: one statement for all of them every CHECK_SECONDS, rather than one per stream,
which with thousands of streams would hold the database pool's connections for nothing
else."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Generic, TypeVar

from supportdesk.auth.authenticate import still_active_keys
from supportdesk.auth.principal import Principal
from supportdesk.db import Database
from supportdesk.domain.clock import now

logger = logging.getLogger("supportdesk.live")

# A stream whose holder is no longer active ends within this plus a statement.
CHECK_SECONDS = 2.0

Holder = TypeVar("Holder")


class ActiveWatch(Generic[Holder]):
    """Watches holders of some kind: `still_active(holders)` answers the identities
    (`identity(holder)`) of those still active, in one statement."""

    def __init__(
        self,
        still_active: Callable[[Sequence[Holder]], Awaitable[set[str]]],
        identity: Callable[[Holder], str],
    ) -> None:
        self._still_active = still_active
        self._identity = identity
        # Per identity: its holder, and the event each of its open streams waits on.
        self._watched: dict[str, tuple[Holder, set[asyncio.Event]]] = {}
        self._task: asyncio.Task[None] | None = None

    def watch(self, holder: Holder) -> asyncio.Event:
        """Set once the holder is no longer active."""
        ended = asyncio.Event()
        _, events = self._watched.setdefault(self._identity(holder), (holder, set()))
        events.add(ended)
        return ended

    def unwatch(self, holder: Holder, ended: asyncio.Event) -> None:
        identity = self._identity(holder)
        watched = self._watched.get(identity)
        if watched is None:
            return
        watched[1].discard(ended)
        if not watched[1]:
            del self._watched[identity]

    async def start(self) -> None:
        self._task = asyncio.create_task(self._check_every_while())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _check_every_while(self) -> None:
        while True:
            await asyncio.sleep(CHECK_SECONDS)
            if not self._watched:
                continue
            try:
                await self.check()
            except Exception:  # a database hiccup does not end the streams
                logger.warning("could not check the event streams' holders", exc_info=True)

    async def check(self) -> None:
        holders = [holder for holder, _ in self._watched.values()]
        active = await self._still_active(holders)
        for identity, (_, events) in list(self._watched.items()):
            if identity not in active:
                for ended in events:
                    ended.set()


class KeyWatch(ActiveWatch[Principal]):
    """The keys of open streams: a key revoked or expired ends its streams."""

    def __init__(self, db: Database) -> None:
        async def still_active(principals: Sequence[Principal]) -> set[str]:
            return await still_active_keys(db, principals, now())

        super().__init__(still_active, lambda principal: principal.key_id)
