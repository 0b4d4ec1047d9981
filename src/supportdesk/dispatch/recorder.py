"""Group commit of attempt outcomes: attempts that finish while a batch is being written
wait for the next one, so a busy dispatcher writes one transaction per batch of outcomes
instead of one per attempt, and an idle one writes each outcome at once."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from supportdesk.db import Database
from supportdesk.dispatch.outcomes import Attempt, record_outcomes


class OutcomeRecorder:
    """`await record(attempt)` returns the delivery's status once it is committed."""

    def __init__(self, db: Database, schedule: Sequence[float]) -> None:
        self._db = db
        self._schedule = schedule
        self._waiting: list[tuple[Attempt, asyncio.Future[str]]] = []
        self._writer: asyncio.Task[None] | None = None

    async def record(self, attempt: Attempt) -> str:
        done: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self._waiting.append((attempt, done))
        if self._writer is None:
            self._writer = asyncio.create_task(self._write(), name="webhook outcomes")
        return await done

    async def _write(self) -> None:
        try:
            while self._waiting:
                batch, self._waiting = self._waiting, []
                try:
                    statuses = await record_outcomes(
                        self._db, [attempt for attempt, _ in batch], self._schedule
                    )
                except Exception as error:
                    for _, done in batch:
                        if not done.done():
                            done.set_exception(error)
                    continue
                for (_, done), status in zip(batch, statuses, strict=True):
                    if not done.done():
                        done.set_result(status)
        finally:
            self._writer = None
