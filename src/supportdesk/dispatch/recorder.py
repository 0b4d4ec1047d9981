"""Group commit of attempt outcomes.

An attempt's outcome is decided at once (succeeded, failed, or pending with its next try)
and written later, with the others that finish within GATHER_SECONDS of it, in one
transaction: a busy dispatcher writes five transactions a second instead of one per
handful of attempts, and an attempt's slot is free as soon as its answer is in. When the
dispatcher claims more work before then, the outcomes waiting go in the claim's transaction
instead (`along`): one transaction a round rather than two. An
endpoint's last success is written at most once a minute (outcomes.SUCCESS_PRECISION):
this recorder remembers when it wrote it and leaves the statement out until then. An
outcome not yet written when the process dies is lost, and its delivery is simply due
again when its lease runs out, as an attempt cut short is (at least once)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence

from supportdesk.db import Connection, Database
from supportdesk.dispatch.outcomes import (
    Attempt,
    Finished,
    HealthyWritten,
    finish,
    note_written,
    write_outcomes,
    write_outcomes_in,
)
from supportdesk.domain.clock import now

logger = logging.getLogger("supportdesk.dispatch")

GATHER_SECONDS = 0.2
MOST_AT_ONCE = 256


class OutcomeRecorder:
    """`record(attempt)` returns the delivery's new status; `drain()` waits until every
    outcome recorded so far is written."""

    def __init__(
        self,
        db: Database,
        schedule: Sequence[float],
        gather_seconds: float = GATHER_SECONDS,
        rng: random.Random | None = None,
    ) -> None:
        self._db = db
        self._schedule = schedule
        self._gather = gather_seconds
        self._rng = rng
        self._waiting: list[Finished] = []
        self._healthy_written: HealthyWritten = {}
        self._full = asyncio.Event()
        self._draining = False
        self._writer: asyncio.Task[None] | None = None

    def record(self, attempt: Attempt) -> str:
        finished = finish(attempt, now(), self._schedule, self._rng)
        self._waiting.append(finished)
        if len(self._waiting) >= MOST_AT_ONCE:
            self._full.set()
        if self._writer is None:
            self._writer = asyncio.create_task(self._write(), name="webhook outcomes")
        return finished.status

    @contextlib.asynccontextmanager
    async def along(self) -> AsyncIterator[Callable[[Connection], Awaitable[None]] | None]:
        """The outcomes waiting, for a transaction the caller is about to write: yields what
        writes them in it (None when none wait). Those it did not write, or whose
        transaction failed, are given back and written on their own."""
        batch = self._take_waiting()
        if not batch:
            yield None
            return
        healthy: HealthyWritten = {}
        wrote = False

        async def write(connection: Connection) -> None:
            nonlocal wrote
            healthy.update(await write_outcomes_in(connection, batch, self._healthy_written))
            wrote = True

        try:
            yield write
        except BaseException:
            self._give_back(batch)
            raise
        if wrote:
            note_written(self._healthy_written, healthy)
        else:
            self._give_back(batch)

    def _take_waiting(self) -> list[Finished]:
        batch, self._waiting = self._waiting[:MOST_AT_ONCE], self._waiting[MOST_AT_ONCE:]
        if len(self._waiting) >= MOST_AT_ONCE:
            self._full.set()
        return batch

    def _give_back(self, batch: list[Finished]) -> None:
        self._waiting[:0] = batch
        if len(self._waiting) >= MOST_AT_ONCE:
            self._full.set()
        if self._writer is None:
            self._writer = asyncio.create_task(self._write(), name="webhook outcomes")

    async def drain(self) -> None:
        self._draining = True
        self._full.set()
        try:
            while self._writer is not None:
                await asyncio.shield(self._writer)
        finally:
            self._draining = False
            self._full.clear()

    async def stop(self) -> None:
        """Give up on what is not written yet (retried after its lease)."""
        writer = self._writer
        if writer is not None:
            writer.cancel()
            await asyncio.gather(writer, return_exceptions=True)

    async def _write(self) -> None:
        try:
            while self._waiting:
                if not self._draining:
                    with contextlib.suppress(TimeoutError):  # the gathering time is up
                        await asyncio.wait_for(self._full.wait(), self._gather)
                self._full.clear()
                batch = self._take_waiting()
                if not batch:
                    break  # a claim took them meanwhile (`along`)
                try:
                    await self._write_once_more_on_failure(batch)
                except Exception:
                    logger.exception(
                        "Writing webhook outcomes failed; their deliveries are tried again "
                        "when their leases run out.",
                        extra={"fields": {"deliveries": len(batch)}},
                    )
        finally:
            self._writer = None

    async def _write_once_more_on_failure(self, batch: list[Finished]) -> None:
        # A second try: PostgreSQL may end one batch of two that lock the same endpoints
        # (a deadlock, a serialization failure) and let the other through.
        written = self._healthy_written
        try:
            await write_outcomes(self._db, batch, written)
        except Exception:
            logger.warning("Writing webhook outcomes failed; trying once more.", exc_info=True)
            await write_outcomes(self._db, batch, written)
