"""Whether the keys of a process's open streams are still active: one statement for all of
them every CHECK_SECONDS, rather than one per stream, which with thousands of streams
would hold the database pool's connections for nothing else."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from supportdesk.auth.authenticate import still_active_keys
from supportdesk.auth.principal import Principal
from supportdesk.db import Database
from supportdesk.domain.clock import now

logger = logging.getLogger("supportdesk.live")

# A revoked key's stream ends within this plus a statement.
CHECK_SECONDS = 2.0


class KeyWatch:
    def __init__(self, db: Database) -> None:
        self._db = db
        # Per key id: its principal, and the event each of its open streams waits on.
        self._watched: dict[str, tuple[Principal, set[asyncio.Event]]] = {}
        self._task: asyncio.Task[None] | None = None

    def watch(self, principal: Principal) -> asyncio.Event:
        """Set once the principal's key is revoked or expired."""
        ended = asyncio.Event()
        _, events = self._watched.setdefault(principal.key_id, (principal, set()))
        events.add(ended)
        return ended

    def unwatch(self, principal: Principal, ended: asyncio.Event) -> None:
        watched = self._watched.get(principal.key_id)
        if watched is None:
            return
        watched[1].discard(ended)
        if not watched[1]:
            del self._watched[principal.key_id]

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
                logger.warning("could not check the event streams' keys", exc_info=True)

    async def check(self) -> None:
        principals = [principal for principal, _ in self._watched.values()]
        active = await still_active_keys(self._db, principals, now())
        for key_id, (_, events) in list(self._watched.items()):
            if key_id not in active:
                for ended in events:
                    ended.set()
