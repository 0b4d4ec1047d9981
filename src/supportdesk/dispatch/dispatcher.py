"""The webhook dispatcher: takes due deliveries, sends them, records what came of it.

It runs in a process of its own, never on an API worker's event loop: `supportdesk serve`
starts one beside its workers, and `supportdesk dispatch` runs one alone (role.py).

It finds work by looking at the queue every POLL_SECONDS (one indexed read when nothing is
due), so the first attempt leaves well within a second of the commit whichever process
made it; mutations, admins' test events, redeliveries, replays and retries coming due are
all found alike. Not LISTEN/NOTIFY: on PostgreSQL a NOTIFY takes a database-wide lock at
commit, serialising the commits of every writing transaction of the deployment (each
mutation queues deliveries), and SQLite has nothing like it.

Attempts run concurrently, a task each, while the loop keeps taking new work. How many run
at once for one endpoint, for one workspace and in all is bounded (shares.py), and the queue
offers every endpoint's oldest delivery before any endpoint's second (queue.py): one
workspace's slow or dead receivers, its retries or a replay of a thousand events never keep
another workspace's first attempts waiting. An endpoint whose attempts keep timing out is
parked: after PARK_AFTER time-outs in a row, none of its deliveries is due for a while (the
retry schedule's first wait, then its second... while it stays silent), so that its
deliveries do not spend their retries, nor the dispatcher its slots, on it.

Once an hour, and at start, events and deliveries past retention are removed, and uploads
no message took within a day. Errors are
logged and the loop goes on; a delivery whose attempt was cut short is due again when its
lease runs out. Nothing here logs a secret or a URL (which may carry a receiver's token).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Coroutine
from datetime import datetime, timedelta
from typing import Any

from supportdesk.auth.secret_box import SecretBox, SecretBoxError, webhook_secret_bytes
from supportdesk.auth.server_key import ServerKey
from supportdesk.config import Settings
from supportdesk.db import Database
from supportdesk.dispatch import outcomes, queue, shares
from supportdesk.dispatch.client import Client, Reply
from supportdesk.dispatch.failures import LoopFailures
from supportdesk.dispatch.recorder import OutcomeRecorder
from supportdesk.dispatch.signing import body_bytes, signed_headers, signing_keys
from supportdesk.domain.attachments import remove_unattached
from supportdesk.domain.clock import now
from supportdesk.domain.events.retention import remove_expired
from supportdesk.observability.metrics import DeliveryMetrics
from supportdesk.storage import storage_for

logger = logging.getLogger("supportdesk.dispatch")

POLL_SECONDS = 0.2
# After a finished attempt freed room that work may wait for, how long others may finish
# before the queue is read again: one claim then fills several places.
GATHER_SECONDS = 0.05
# Time-outs in a row that park an endpoint.
PARK_AFTER = 3
# A delivery waiting in its endpoint's line starts at the latest this long plus the time-out
# before its lease ends, so that its outcome is written while the lease still holds.
LEASE_MARGIN_SECONDS = 5.0
ENDPOINTS_KEPT = 4096
CLEANUP_SECONDS = 3600.0
STOP_GRACE_SECONDS = 5.0
OPENED_SECRETS_KEPT = 1024
# How often the metrics' ages of the oldest pending deliveries are read (when metrics are on).
WAITING_SECONDS = 15.0
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
        concurrency: int = shares.CONCURRENCY,
        poll_seconds: float = POLL_SECONDS,
        metrics: DeliveryMetrics | None = None,
    ) -> None:
        self._db = db
        self._settings = settings
        self._server_key = server_key
        self._poll_seconds = poll_seconds
        self._metrics = metrics
        self._box: SecretBox | None = None
        self._opened: dict[str, bytes] = {}  # sealed secret -> its bytes, for signing
        self._client = Client(settings.webhook_timeout_seconds, settings.webhook_allow_private)
        self._recorder = OutcomeRecorder(db, settings.webhook_retry_schedule)
        self._lease = timedelta(seconds=settings.webhook_lease_seconds)
        self._woken = asyncio.Event()
        self._stopping = False
        self._abandoned = False  # stopped waiting for attempts: what comes is not recorded
        self._tasks: list[asyncio.Task[None]] = []
        self._shares = shares.Shares(concurrency)
        self._none_in_flight = asyncio.Event()
        self._none_in_flight.set()
        self._attempts: set[asyncio.Task[None]] = set()
        self._time_outs: dict[str, int] = {}  # by endpoint: time-outs in a row
        self._parked: dict[str, tuple[int, datetime]] = {}  # by endpoint: how often, when

    async def start(self) -> None:
        self._tasks = [
            asyncio.create_task(self._deliver(), name="webhook dispatch"),
            asyncio.create_task(self._clean_up(), name="event retention"),
        ]
        if self._metrics is not None:
            self._tasks.append(
                asyncio.create_task(self._measure(self._metrics), name="webhook metrics")
            )

    async def stop(self, grace: float = STOP_GRACE_SECONDS) -> None:
        """Stop taking work; attempts in flight get `grace` seconds to finish and be
        recorded. One cut short is retried, by any dispatcher, when its lease runs out."""
        if not self._tasks:
            return  # never started, or stopped already
        self._stopping = True
        self._woken.set()
        deliver, *others = self._tasks
        self._tasks = []
        for task in others:  # retention, metrics
            task.cancel()
        # The loop ends at its next turn: a claim in progress is finished and its attempts
        # started, rather than its leased deliveries left to wait out the lease.
        await asyncio.wait([deliver, *others], timeout=grace)
        with contextlib.suppress(Exception):  # otherwise due when their leases run out
            await queue.release(self._db, self._shares.drop_waiting(), now())
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._none_in_flight.wait(), grace)
        self._abandoned = True  # what is still under way is cut short, and not recorded
        for task in (deliver, *self._attempts):
            task.cancel()
        await asyncio.gather(deliver, *others, *self._attempts, return_exceptions=True)
        try:  # outcomes not yet written; one left unwritten is retried after its lease
            await asyncio.wait_for(self._recorder.drain(), grace)
        except TimeoutError:
            logger.warning("Some webhook outcomes were not written before stopping.")
            await self._recorder.stop()
        await self._client.close()

    async def _deliver(self) -> None:
        failures = LoopFailures(logger, "Taking webhook deliveries")
        while not self._stopping:
            more = False
            try:
                more = await self._take_batch()
                failures.succeeded()
            except Exception as error:
                failures.failed(error)
                await asyncio.sleep(ERROR_PAUSE_SECONDS)
            if more:
                continue
            # A poll's time, or less when a finished attempt freed a slot that work waits for.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._woken.wait(), self._poll_seconds)
                if not self._stopping:
                    await asyncio.sleep(GATHER_SECONDS)
            self._woken.clear()

    async def _take_batch(self) -> bool:
        """Take what is due and fits this dispatcher's shares, and start what may run;
        True when more may be waiting already."""
        room = self._shares.room()
        if room <= 0:
            return False  # a finishing attempt wakes the loop
        moment = now()
        # The offers' read is the look at the queue: an idle queue costs that one read.
        offered = await queue.candidates(
            self._db,
            moment,
            room,
            self._shares.deepest(),
            self._shares.full_endpoints(),
            self._shares.full_workspaces(),
        )
        if not offered:
            return False
        picked = self._shares.pick(offered)
        async with self._recorder.along() as outcomes_first:
            batch = await queue.take(self._db, moment, picked, self._lease, outcomes_first)
        await self._load_box()
        start_by = time.monotonic() + self._start_within()
        for due in batch:
            self._shares.add(due, start_by)
        self._run_what_may()
        # Offers left out for a share now full: the next read leaves that share out.
        return bool(picked) and len(offered) == room and len(picked) < room

    def _start_within(self) -> float:
        """Seconds a delivery may wait in its endpoint's line: its attempt must have had its
        answer, and its outcome written, before its lease ends and another dispatcher may
        take it. A lease too short for that (a test's setting) leaves half of it."""
        lease = self._lease.total_seconds()
        room = lease - self._settings.webhook_timeout_seconds - LEASE_MARGIN_SECONDS
        return room if room > 0 else lease / 2

    def _run_what_may(self) -> None:
        if self._stopping:
            return
        started, late = self._shares.startable(time.monotonic())
        for due in started:
            self._start(due)
        if late:
            logger.info(
                "Webhook deliveries waited too long for their endpoint; back in the queue.",
                extra={"fields": {"deliveries": len(late)}},
            )
            self._in_background(queue.release(self._db, late, now()))

    def _in_background(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(self._logged(work))
        self._attempts.add(task)
        task.add_done_callback(self._attempts.discard)

    @staticmethod
    async def _logged(work: Coroutine[Any, Any, None]) -> None:
        try:
            await work
        except Exception:
            logger.exception("Giving webhook deliveries back to the queue failed.")

    def _start(self, due: queue.Due) -> None:
        self._none_in_flight.clear()
        attempt = asyncio.create_task(self._attempt(due))
        self._attempts.add(attempt)
        attempt.add_done_callback(self._attempts.discard)

    async def _attempt(self, due: queue.Due) -> None:
        """Send one delivery and record what came of it (written with others shortly,
        recorder.py); a delivery that cannot be sent fails unsent."""
        try:
            if not due.enabled or due.body is None:
                disabled = not due.enabled
                reason = outcomes.ENDPOINT_DISABLED if disabled else outcomes.EVENT_NOT_KEPT
                await outcomes.give_up(self._db, due, reason)
                return
            started = now()
            reply = await self._send(due, started)
            if self._abandoned:
                return  # retried when its lease runs out
            status = self._recorder.record(outcomes.Attempt(due, reply, started))
            if self._metrics is not None:
                self._metrics.attempted(_outcome_name(reply, status))
            self._log(due, reply, status)
            self._judge(due, reply, started)
        except Exception:
            logger.exception(
                "A webhook attempt failed unexpectedly; it is retried when its lease runs out.",
                extra={"fields": {"delivery": due.delivery_id, "endpoint": due.endpoint_id}},
            )
        finally:
            if not self._abandoned:
                self._finished(due)

    async def _send(self, due: queue.Due, started: datetime) -> Reply:
        assert due.body is not None
        try:
            keys = signing_keys(
                self._open,
                due.secret_sealed,
                due.previous_secret_sealed,
                due.previous_secret_expires_at,
                started,
            )
        except SecretBoxError:
            # Not the receiver's fault, but nothing unsigned ever leaves: retried later.
            return Reply(None, "the signing secret could not be opened (server key)", 0)
        body = body_bytes(due.body)
        headers = signed_headers(due.event_id, int(time.time()), body, keys)
        return await self._client.post(due.url, headers, body)

    def _finished(self, due: queue.Due) -> None:
        if self._shares.finished(due):
            self._woken.set()
        self._run_what_may()
        if not self._shares.running:
            self._none_in_flight.set()

    def _judge(self, due: queue.Due, reply: Reply, started: datetime) -> None:
        """Park the endpoint after PARK_AFTER time-outs in a row; an answer ends the row."""
        endpoint_id = due.endpoint_id
        quickly = reply.status is not None and reply.duration_ms < shares.FAST_SECONDS * 1000
        self._shares.answered(endpoint_id, quickly)
        if not reply.timed_out:
            self._time_outs.pop(endpoint_id, None)
            if reply.status is not None:
                self._parked.pop(endpoint_id, None)
            return
        parks, parked_at = self._parked.get(endpoint_id, (0, started))
        if started < parked_at:
            return  # sent before the endpoint was parked: already counted
        in_a_row = self._time_outs[endpoint_id] = self._time_outs.get(endpoint_id, 0) + 1
        if in_a_row < PARK_AFTER:
            return
        del self._time_outs[endpoint_id]
        schedule = self._settings.webhook_retry_schedule
        moment = now()
        until = moment + timedelta(seconds=schedule[min(parks, len(schedule) - 1)])
        if len(self._parked) >= ENDPOINTS_KEPT:
            self._parked.clear()
            self._time_outs.clear()
        self._parked[endpoint_id] = (parks + 1, moment)
        logger.info(
            "A webhook endpoint keeps timing out; parked.",
            extra={"fields": {"endpoint": endpoint_id, "until": until.isoformat()}},
        )
        held = self._shares.drop_waiting(endpoint_id)
        self._in_background(
            queue.park(self._db, due.workspace_id, endpoint_id, moment, until, held)
        )

    async def _load_box(self) -> None:
        # Until a server key is there (PostgreSQL without one), every batch looks again.
        if self._box is None:
            self._box = await self._server_key.secret_box()

    def _open(self, sealed: str) -> bytes:
        # Opening costs a decryption; an endpoint's sealed secret changes only by rotation,
        # which seals a new one, so what was opened stays right.
        opened = self._opened.get(sealed)
        if opened is None:
            if self._box is None:
                raise SecretBoxError("no server key is configured to open webhook secrets")
            if len(self._opened) >= OPENED_SECRETS_KEPT:
                self._opened.clear()
            opened = self._opened[sealed] = webhook_secret_bytes(self._box.open(sealed))
        return opened

    def _log(self, due: queue.Due, reply: Reply, status: str) -> None:
        if reply.succeeded and not logger.isEnabledFor(logging.DEBUG):
            return  # nearly every attempt: no fields built for a line nobody prints
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

    async def _measure(self, metrics: DeliveryMetrics) -> None:
        failures = LoopFailures(logger, "Reading the webhook queue's metrics")
        while not self._stopping:
            try:
                metrics.waiting(*await queue.oldest_pending(self._db, now()))
                failures.succeeded()
            except Exception as error:
                failures.failed(error)
            await asyncio.sleep(WAITING_SECONDS)

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
            await self._remove_unattached()
            await asyncio.sleep(max(0.0, CLEANUP_SECONDS - (time.monotonic() - started)))

    async def _remove_unattached(self) -> None:
        """Uploads no message took within a day go, with their bytes (docs/attachments.md)."""
        try:
            removed = await remove_unattached(self._db, storage_for(self._settings), now())
            if removed:
                logger.info("Removed unattached uploads.", extra={"fields": {"rows": removed}})
        except Exception:
            logger.exception("Removing unattached uploads failed; trying again in an hour.")


def _outcome_name(reply: Reply, status: str) -> str:
    """The metrics' name of an attempt's outcome (observability.metrics.DELIVERY_OUTCOMES)."""
    if reply.status == 410:
        return "disabled"
    return {"pending": "retrying"}.get(status, status)
