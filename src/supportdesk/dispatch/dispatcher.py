"""The webhook dispatcher: takes due deliveries, sends them, records what came of it.

Every `supportdesk serve` process runs one (and `supportdesk dispatch` runs one alone).
It finds work two ways. A commit in this process that queued deliveries wakes it at once
(`Database.delivery_listeners`), which keeps the first attempt well within a second of the
commit. Commits of other processes, and retries coming due, are seen by polling the queue
every quarter second. Not LISTEN/NOTIFY: on PostgreSQL a NOTIFY takes a database-wide lock
at commit, serialising the commits of every writing transaction of the deployment (each
mutation queues deliveries), and SQLite has nothing like it; a poll is one indexed read.

Attempts run concurrently, up to a bound, while the loop keeps taking new work, so a slow
receiver (up to the time-out) holds one slot, not the queue. Once an hour, and at start,
events and deliveries past retention are removed. Errors are logged and the loop goes on;
a delivery whose attempt was cut short is due again when its lease runs out. Nothing here
logs a secret or a URL (which may carry a receiver's token).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from datetime import datetime, timedelta

from supportdesk.auth.secret_box import SecretBox, SecretBoxError, webhook_secret_bytes
from supportdesk.auth.server_key import ServerKey
from supportdesk.config import Settings
from supportdesk.db import Database
from supportdesk.dispatch import outcomes, queue
from supportdesk.dispatch.recorder import OutcomeRecorder
from supportdesk.dispatch.sender import Reply, Sender
from supportdesk.dispatch.signing import body_bytes, signed_headers, signing_keys
from supportdesk.domain.clock import now
from supportdesk.domain.events.retention import remove_expired

logger = logging.getLogger("supportdesk.dispatch")

CONCURRENCY = 32
POLL_SECONDS = 0.25
# After a wake-up, how long commits may gather before the queue is read: under load one
# claim then takes many deliveries instead of one per commit (each claim is a transaction).
GATHER_SECONDS = 0.02
CLEANUP_SECONDS = 3600.0
STOP_GRACE_SECONDS = 5.0
OPENED_SECRETS_KEPT = 1024
# After an unexpected error, before trying again: a broken database is not hammered.
ERROR_PAUSE_SECONDS = 1.0


class Dispatcher:
    """Delivers this deployment's webhooks from `start()` until `stop()`."""

    def __init__(
        self,
        db: Database,
        settings: Settings,
        server_key: ServerKey,
        *,
        concurrency: int = CONCURRENCY,
        poll_seconds: float = POLL_SECONDS,
    ) -> None:
        self._db = db
        self._settings = settings
        self._server_key = server_key
        self._concurrency = concurrency
        self._poll_seconds = poll_seconds
        self._box: SecretBox | None = None
        self._opened: dict[str, bytes] = {}  # sealed secret -> its bytes, for signing
        self._sender: Sender | None = None
        self._recorder = OutcomeRecorder(db, settings.webhook_retry_schedule)
        self._woken = asyncio.Event()
        self._stopping = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._in_flight: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._sender = Sender(
            self._settings.webhook_timeout_seconds,
            self._settings.webhook_allow_private,
            self._concurrency,
        )
        self._db.delivery_listeners.append(self.wake)
        self._tasks = [
            asyncio.create_task(self._deliver(), name="webhook dispatch"),
            asyncio.create_task(self._clean_up(), name="event retention"),
        ]

    def wake(self) -> None:
        """Look at the queue now (called after a commit that queued deliveries)."""
        if self._loop is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._woken.set)

    async def stop(self, grace: float = STOP_GRACE_SECONDS) -> None:
        """Stop taking work; attempts in flight get `grace` seconds to finish and be
        recorded. One cut short is retried, by any dispatcher, when its lease runs out."""
        if not self._tasks:
            return  # never started, or stopped already
        self._stopping = True
        if self.wake in self._db.delivery_listeners:
            self._db.delivery_listeners.remove(self.wake)
        self._woken.set()
        deliver, clean_up = self._tasks
        self._tasks = []
        clean_up.cancel()
        # The loop ends at its next turn: a claim in progress is finished and its attempts
        # started, rather than its leased deliveries left to wait out the lease.
        await asyncio.wait([deliver, clean_up], timeout=grace)
        late = {task for task in (deliver, *self._in_flight) if not task.done()}
        if late:
            _, late = await asyncio.wait(late, timeout=grace)
        for task in late:
            task.cancel()
        await asyncio.gather(deliver, clean_up, *late, return_exceptions=True)
        if self._sender is not None:
            await self._sender.aclose()

    async def _deliver(self) -> None:
        woken = False
        while not self._stopping:
            self._woken.clear()
            more = False
            try:
                more = await self._take_batch(known_due=woken)
            except Exception:
                logger.exception("Taking webhook deliveries failed; trying again shortly.")
                await asyncio.sleep(ERROR_PAUSE_SECONDS)
            woken = more
            if not more:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._woken.wait(), self._poll_seconds)
                    woken = True
                    if not self._stopping:
                        await asyncio.sleep(GATHER_SECONDS)

    async def _take_batch(self, known_due: bool) -> bool:
        """Start attempts for what is due; True when more may be waiting already.
        `known_due`: a commit (or a full batch) says there is work, so no look first."""
        free = self._concurrency - len(self._in_flight)
        if free <= 0:
            return False  # a finishing attempt wakes the loop
        moment = now()
        if not known_due and not await queue.any_due(self._db, moment):
            return False
        batch = await queue.claim(
            self._db, moment, free, timedelta(seconds=self._settings.webhook_lease_seconds)
        )
        for due in batch:
            task = asyncio.create_task(self._attempt(due))
            self._in_flight.add(task)
            task.add_done_callback(self._finished)
        return len(batch) == free

    def _finished(self, task: asyncio.Task[None]) -> None:
        was_full = len(self._in_flight) >= self._concurrency
        self._in_flight.discard(task)
        if was_full:
            self._woken.set()

    async def _attempt(self, due: queue.Due) -> None:
        try:
            if not due.enabled:
                await outcomes.give_up(self._db, due, outcomes.ENDPOINT_DISABLED)
                return
            if due.body is None:
                await outcomes.give_up(self._db, due, outcomes.EVENT_NOT_KEPT)
                return
            started = now()
            reply = await self._send(due, started)
            status = await self._recorder.record(outcomes.Attempt(due, reply, started))
            self._log(due, reply, status)
        except Exception:
            logger.exception(
                "A webhook attempt failed unexpectedly; it is retried when its lease runs out.",
                extra={"fields": {"delivery": due.delivery_id, "endpoint": due.endpoint_id}},
            )

    async def _send(self, due: queue.Due, moment: datetime) -> Reply:
        assert self._sender is not None and due.body is not None
        try:
            keys = signing_keys(
                await self._opener(),
                due.secret_sealed,
                due.previous_secret_sealed,
                due.previous_secret_expires_at,
                moment,
            )
        except SecretBoxError:
            # Not the receiver's fault, but nothing unsigned ever leaves: retried later.
            return Reply(None, "the signing secret could not be opened (server key)", 0)
        body = body_bytes(due.body)
        headers = signed_headers(due.event_id, int(moment.timestamp()), body, keys)
        return await self._sender.post(due.url, headers, body)

    async def _opener(self) -> Callable[[str], bytes]:
        if self._box is None:
            self._box = await self._server_key.secret_box()
            if self._box is None:
                raise SecretBoxError("no server key is configured to open webhook secrets")
        return self._open

    def _open(self, sealed: str) -> bytes:
        # Opening costs a decryption; an endpoint's sealed secret changes only by rotation,
        # which seals a new one, so what was opened stays right.
        opened = self._opened.get(sealed)
        if opened is None:
            assert self._box is not None
            if len(self._opened) >= OPENED_SECRETS_KEPT:
                self._opened.clear()
            opened = self._opened[sealed] = webhook_secret_bytes(self._box.open(sealed))
        return opened

    def _log(self, due: queue.Due, reply: Reply, status: str) -> None:
        fields = {
            "delivery": due.delivery_id,
            "endpoint": due.endpoint_id,
            "event": due.event_id,
            "attempt": due.attempts + 1,
            "status": status,
            "response_status": reply.status,
            "duration_ms": reply.duration_ms,
        }
        if reply.succeeded:
            logger.debug("Webhook delivered.", extra={"fields": fields})
        else:
            fields["error"] = reply.error
            logger.info("Webhook attempt failed.", extra={"fields": fields})

    async def _clean_up(self) -> None:
        while not self._stopping:
            started = time.monotonic()
            try:
                removed = await remove_expired(self._db, now(), self._settings.event_retention_days)
                if removed:
                    logger.info(
                        "Removed expired events and deliveries.",
                        extra={"fields": {"rows": removed}},
                    )
            except Exception:
                logger.exception("Removing expired events failed; trying again in an hour.")
            await asyncio.sleep(max(0.0, CLEANUP_SECONDS - (time.monotonic() - started)))
