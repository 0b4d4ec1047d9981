"""The IMAP poller: the dispatcher role's task that takes new mail from every mailbox with
an `imapUrl` into the inbound pipeline (docs/email.md).

Each mailbox has a task of its own (one slow or broken server holds up no other) in each
dispatcher; a lease in the mailbox's row lets one dispatcher at a time poll it. Every
SUPPORTDESK_IMAP_POLL_SECONDS it logs in, EXAMINEs the folder, fetches each message above
its checkpoint in UID order and hands it to the pipeline with the checkpoint's advance,
written in the very transaction that keeps the message. A crash before that commit leaves
the message to the next poll; after it, the message is never fetched again. A UIDVALIDITY
other than the checkpoint's reads the folder from its beginning: the pipeline files a
Message-ID once per mailbox, so what was taken before stays taken once.

A refused login, a TLS failure or a server gone is logged (never with the password) and
tried again later, the wait doubling up to MAX_BACKOFF_SECONDS; nothing here ends the role.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import ssl
from collections.abc import Awaitable, Callable
from functools import partial

from imap_tools.errors import MailboxLoginError, UnexpectedCommandStatusError

from supportdesk.auth.secret_box import SecretBox
from supportdesk.auth.server_key import ServerKey
from supportdesk.config import Settings
from supportdesk.db import Database
from supportdesk.db.connection import Connection
from supportdesk.domain.email.intake import MailIntake
from supportdesk.domain.email.pipeline import MailboxGone
from supportdesk.domain.webhooks.address_policy import UnsafeUrl, resolve_checked
from supportdesk.imap.checkpoints import (
    Polled,
    advance,
    advance_alone,
    lease,
    polled,
    polled_mailboxes,
    release,
)
from supportdesk.imap.session import ImapSession
from supportdesk.imap.source import ImapSource, imap_source, tls_context
from supportdesk.storage import storage_for

log = logging.getLogger("supportdesk.imap")

DOOR = "imap"
MAX_BACKOFF_SECONDS = 1800.0
# How long a dispatcher holds a mailbox's polling at most (it lets go when the poll ends).
LEASE_SECONDS = 300.0


class ImapPoller:
    """Polls every IMAP mailbox of the deployment from `start()` until `stop()`."""

    def __init__(
        self,
        db: Database,
        settings: Settings,
        server_key: ServerKey,
        *,
        poll_seconds: float | None = None,
    ) -> None:
        self._db = db
        self._server_key = server_key
        self._poll_seconds = poll_seconds or settings.imap_poll_seconds
        self._timeout = settings.imap_timeout_seconds
        self._ca_file = settings.imap_ca_file
        self._allow_private = settings.imap_allow_private
        self._intake = MailIntake(
            db,
            server_key,
            storage_for(settings),
            settings.email_max_bytes,
            settings.attachment_max_bytes,
        )
        self._context: ssl.SSLContext | None = None
        self._box: SecretBox | None = None
        self._watcher: asyncio.Task[None] | None = None
        self._polling: dict[tuple[str, str], asyncio.Task[None]] = {}
        # Mailboxes whose lease may be ours: a stop that cancels a lease being taken (its
        # commit sent, its answer not read) must still give it back, or the next dispatcher
        # waits out LEASE_SECONDS.
        self._leasing: set[tuple[str, str]] = set()

    async def start(self) -> None:
        self._watcher = asyncio.create_task(self._watch(), name="imap mailboxes")

    async def stop(self) -> None:
        """Stop at once: a message being filed is rolled back with its checkpoint, and
        fetched again by the next poll."""
        tasks = [*self._polling.values(), *([self._watcher] if self._watcher else [])]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._polling.clear()
        self._watcher = None
        for workspace_id, mailbox_id in list(self._leasing):
            with contextlib.suppress(Exception):
                await release(self._db, workspace_id, mailbox_id)
        self._leasing.clear()

    async def _watch(self) -> None:
        """Start a task for each mailbox that gained an IMAP URL; the task of one that lost
        it ends by itself."""
        while True:
            try:
                for key in await polled_mailboxes(self._db):
                    task = self._polling.get(key)
                    if task is None or task.done():
                        self._polling[key] = asyncio.create_task(
                            self._poll_mailbox(*key), name=f"imap {key[1]}"
                        )
            except Exception:
                log.exception("could not list the mailboxes to poll")
            await asyncio.sleep(self._poll_seconds)

    async def _poll_mailbox(self, workspace_id: str, mailbox_id: str) -> None:
        failures = 0
        while True:
            try:
                if not await self._poll_leased(workspace_id, mailbox_id):
                    return
                failures = 0
            except Exception as error:  # logged; the next poll tries again
                failures += 1
                wait = self._backoff(failures)
                log.warning(
                    "IMAP mailbox %s: %s (failure %d; next try in %.1f s)",
                    mailbox_id,
                    _described(error),
                    failures,
                    wait,
                )
                await asyncio.sleep(wait)
                continue
            await asyncio.sleep(self._poll_seconds)

    async def _poll_leased(self, workspace_id: str, mailbox_id: str) -> bool:
        """Poll the mailbox unless another dispatcher is at it; False when it is gone (or
        has no IMAP URL any more)."""
        key = (workspace_id, mailbox_id)
        self._leasing.add(key)
        if not await lease(self._db, workspace_id, mailbox_id, LEASE_SECONDS):
            self._leasing.discard(key)
            return await polled(self._db, workspace_id, mailbox_id) is not None
        try:
            # Read after the lease is taken: the checkpoint the last holder left.
            found = await polled(self._db, workspace_id, mailbox_id)
            if found is None:
                return False
            await self._poll(found)
            return True
        except MailboxGone:
            return False
        finally:
            await release(self._db, workspace_id, mailbox_id)
            self._leasing.discard(key)

    def _backoff(self, failures: int) -> float:
        return min(self._poll_seconds * 2.0 ** min(failures, 20), MAX_BACKOFF_SECONDS)

    async def _poll(self, found: Polled) -> None:
        source = imap_source((await self._secret_box()).open(found.sealed_url))
        await self._check_address(source)
        session = await asyncio.to_thread(self._session, source)
        try:
            await self._take_new(found, session)
        finally:
            await asyncio.to_thread(session.close)

    async def _check_address(self, source: ImapSource) -> None:
        """A mailbox's URL is a workspace's to choose and the server connects to it: the
        webhooks' address policy keeps it from the host's own services, the private network
        and cloud metadata. The name is resolved again as the session connects: a name that
        changes its answer meanwhile (DNS rebinding) could make it greet another server, but
        logs in only over TLS with a certificate trusted for that name, and says no more
        than a poll's failure in the log."""
        try:
            await resolve_checked(source.host, source.port, self._allow_private)
        except UnsafeUrl as refused:
            reason = refused.reason.replace("the URL's host", "the IMAP server")
            private = "not a public address" in refused.reason
            hint = "; SUPPORTDESK_IMAP_ALLOW_PRIVATE opens those" if private else ""
            raise PollFailed(f"not polled: {reason}{hint}") from None

    def _session(self, source: ImapSource) -> ImapSession:
        try:
            return ImapSession(source, self._tls(), self._timeout)
        except Exception as error:
            # imaplib may quote a command; nothing it says may carry the password on.
            said = _described(error)
            if source.password:
                said = said.replace(source.password, "***")
            raise PollFailed(said) from None

    async def _take_new(self, found: Polled, session: ImapSession) -> None:
        mailbox, validity = found.mailbox, session.uid_validity
        after = found.last_uid_under(validity)
        waiting = await asyncio.to_thread(session.waiting_after, after)
        if not waiting:
            return
        log.info(
            "IMAP mailbox %s: %d new (UIDVALIDITY %d, after UID %d)",
            mailbox.id,
            len(waiting),
            validity,
            after,
        )
        for message in waiting:
            if message.size > self._intake.max_message_bytes:
                log.warning(
                    "IMAP mailbox %s: UID %d has %d bytes, over the limit: left on the server",
                    mailbox.id,
                    message.uid,
                    message.size,
                )
                await advance_alone(self._db, mailbox, validity, message.uid)
                continue
            raw = await asyncio.to_thread(session.raw, message.uid)
            if raw is None:
                await advance_alone(self._db, mailbox, validity, message.uid)
                continue
            along_with: Callable[[Connection], Awaitable[None]] = partial(
                advance, mailbox=mailbox, uid_validity=validity, uid=message.uid
            )
            received = await self._intake.receive(mailbox, raw, DOOR, (), along_with)
            if received.duplicate:
                # Kept before (another door, or a folder read again): nothing was written.
                await advance_alone(self._db, mailbox, validity, message.uid)

    def _tls(self) -> ssl.SSLContext:
        if self._context is None:
            self._context = tls_context(self._ca_file)
        return self._context

    async def _secret_box(self) -> SecretBox:
        if self._box is None:
            self._box = await self._server_key.secret_box()
        if self._box is None:
            raise PollFailed("no server key to open the IMAP URL with (SUPPORTDESK_SECRET_KEY)")
        return self._box


class PollFailed(Exception):
    """A poll that could not reach, or log in to, the mailbox's server."""


def _described(error: BaseException) -> str:
    """What went wrong, for the log: the kind and the server's words, no traceback."""
    if isinstance(error, PollFailed):
        return str(error)
    if isinstance(error, UnexpectedCommandStatusError):
        said = b" ".join(part for part in error.command_result[1] if isinstance(part, bytes))
        what = "login refused" if isinstance(error, MailboxLoginError) else type(error).__name__
        return f"{what}: {said.decode('utf-8', 'replace')}"
    if isinstance(error, ssl.SSLError | ssl.CertificateError):
        return f"TLS failed: {error}"
    if isinstance(error, TimeoutError):
        return "timed out"
    if isinstance(error, OSError):
        return f"could not connect: {error.strerror or error}"
    return f"{type(error).__name__}: {error}"


__all__ = ["ImapPoller"]
