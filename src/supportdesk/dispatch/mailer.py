"""The mailer: the dispatcher role's sender of the outbox (docs/email.md, "Sending").

It looks at the outbox every POLL_SECONDS, leases what is due (a batch and what its mails
say, read with a few statements: mail_queue.py; only after a full batch does it look again
at once, so that at a modest rate a batch gathers several mails instead of paying its reads
and transactions for one), builds each mail (composing.py), hands it
to `SUPPORTDESK_SMTP_URL` with aiosmtplib, and records the outcome (a batch's delivered
mails in one transaction). Connections to the server are kept open across mails and batches,
one for each mail sent at once, and closed after IDLE_SECONDS unused; one the server closed
meanwhile is replaced, and the mail sent again on the new one. A server that answers 4xx, or
cannot be reached, gets the mail again on the webhooks' retry schedule
(`SUPPORTDESK_WEBHOOK_RETRY_SCHEDULE`); a 5xx fails it for good: `Message.email.status`
becomes `failed`, an internal note tells the agents and the event
`message.email_failed` tells integrations. The SMTP URL's password is never logged.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass
from datetime import datetime

import aiosmtplib

from supportdesk.auth.server_key import ServerKey
from supportdesk.config import Settings
from supportdesk.db import Database
from supportdesk.dispatch import mail_queue
from supportdesk.dispatch.failures import LoopFailures
from supportdesk.dispatch.schedule import scheduled_wait
from supportdesk.dispatch.smtp_url import SmtpServer, SmtpUrlError, smtp_server
from supportdesk.domain.clock import now
from supportdesk.domain.email import issue_tokens
from supportdesk.domain.email.composing import File, Outgoing, compose, reply_subject
from supportdesk.domain.email.outbox import ACKNOWLEDGEMENT
from supportdesk.storage import ObjectStorage, storage_for

logger = logging.getLogger("supportdesk.dispatch.mail")

POLL_SECONDS = 0.2
BATCH = 10
ERROR_PAUSE_SECONDS = 1.0
STOP_GRACE_SECONDS = 5.0
# An open connection to the mail server unused this long is closed (servers close theirs
# after a few minutes; RFC 5321 asks a server to wait at least 5).
IDLE_SECONDS = 30.0


@dataclass(frozen=True, slots=True)
class Answer:
    """What the mail server said: delivered, or why not and whether for good."""

    delivered: bool
    permanent: bool = False
    error: str | None = None


def acknowledgement_text(ticket_number: int, subject: str) -> str:
    return (
        f"Thank you for your message. We opened issue #{ticket_number} for it:\n\n"
        f"    {subject}\n\n"
        "Someone will answer soon. Reply to this mail to add to the issue.\n\n"
        "This is an automatic message."
    )


class Mailer:
    """Sends the deployment's outbox from `start()` until `stop()`; idle (the mail stays
    queued) without `SUPPORTDESK_SMTP_URL`."""

    def __init__(
        self,
        db: Database,
        settings: Settings,
        server_key: ServerKey,
        storage: ObjectStorage | None = None,
        poll_seconds: float = POLL_SECONDS,
    ) -> None:
        self._db = db
        self._settings = settings
        self._server_key = server_key
        self._storage = storage or storage_for(settings)
        self._poll_seconds = poll_seconds
        self._timeout = max(settings.webhook_timeout_seconds, 10.0)
        self._schedule = settings.webhook_retry_schedule
        self._server: SmtpServer | None = None
        self._thread_key: bytes | None = None
        self._task: asyncio.Task[None] | None = None
        self._stopping = False
        # Open connections not in use, each with when it was last used (time.monotonic).
        self._idle: list[tuple[aiosmtplib.SMTP, float]] = []

    def start(self) -> None:
        if not self._settings.smtp_url:
            return
        try:
            self._server = smtp_server(self._settings.smtp_url)
        except SmtpUrlError as error:
            logger.error("Mail is not sent: %s", error)
            return
        logger.info("Sending mail through %s.", self._server)
        self._task = asyncio.create_task(self._run(), name="mail dispatch")

    async def stop(self, grace: float = STOP_GRACE_SECONDS) -> None:
        if self._task is None:
            return
        self._stopping = True
        with contextlib.suppress(TimeoutError, asyncio.CancelledError):
            await asyncio.wait_for(asyncio.shield(self._task), grace)
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self._task
        self._task = None
        await self._close_idle(0.0)

    async def _run(self) -> None:
        failures = LoopFailures(logger, "Taking mail from the outbox")
        while not self._stopping:
            try:
                taken = await mail_queue.take(self._db, now(), BATCH)
                failures.succeeded()
                if taken:
                    sent_at = await asyncio.gather(*(self._attempt(mail) for mail in taken))
                    await self._record_sent(list(zip(taken, sent_at, strict=True)))
                    if len(taken) == BATCH:
                        continue  # more may be due now; a part batch waits for the next look
                else:
                    await self._close_idle(IDLE_SECONDS)
            except Exception as error:
                failures.failed(error)
                await asyncio.sleep(ERROR_PAUSE_SECONDS)
            await asyncio.sleep(self._poll_seconds)

    async def _record_sent(
        self, attempts: list[tuple[mail_queue.DueMail, datetime | None]]
    ) -> None:
        """The batch's delivered mails, recorded in one transaction."""
        delivered = [(mail, at) for mail, at in attempts if at is not None]
        try:
            await mail_queue.sent(self._db, delivered)
        except Exception:
            logger.exception(
                "Recording sent mail failed; it is sent again when its lease runs out.",
                extra={"fields": {"mails": [mail.id for mail, _ in delivered]}},
            )

    async def _attempt(self, mail: mail_queue.DueMail) -> datetime | None:
        """One try at sending; when the server took the mail, when (recorded by the caller
        with the rest of the batch)."""
        try:
            # The envelope's sender is the reply address too: a bounce comes back to it and
            # joins the issue by its token, whatever the report's headers say.
            reply_to = await self._reply_address(mail)
            try:
                built = await self._build(mail, reply_to)
            except (ValueError, UnicodeError) as unwritable:
                # An address no header or SMTP path can hold as it is: no retry mends it.
                answer = Answer(False, True, f"not sent: {unwritable}")
            else:
                answer = await self._send(built, reply_to, mail.recipient)
            at = now()
            if answer.delivered:
                return at
            error = answer.error or "not delivered"
            wait = None if answer.permanent else scheduled_wait(mail.attempts + 1, self._schedule)
            fields = {"mail": mail.id, "attempt": mail.attempts + 1, "error": error}
            if wait is None:
                logger.info("Mail failed.", extra={"fields": fields})
                await mail_queue.failed(self._db, mail, at, error)
            else:
                logger.info("Mail attempt failed; retried.", extra={"fields": fields})
                await mail_queue.retry(self._db, mail, at, wait, error)
        except Exception:
            logger.exception(
                "A mail attempt failed unexpectedly; it is retried when its lease runs out.",
                extra={"fields": {"mail": mail.id}},
            )
        return None

    async def _build(self, mail: mail_queue.DueMail, reply_to: str) -> bytes:
        said = mail.content
        files = []
        for name, content_type, key in said.files:
            if key is None:
                continue
            chunks = [chunk async for chunk in await self._storage.read_stream(key)]
            files.append(File(name, content_type, b"".join(chunks)))
        automatic = mail.kind == ACKNOWLEDGEMENT
        body = acknowledgement_text(mail.ticket_number, mail.subject) if automatic else said.body
        return compose(
            Outgoing(
                sender_address=mail.mailbox_address,
                sender_name=mail.mailbox_name,
                recipient=mail.recipient,
                reply_to=reply_to,
                message_key=mail.message_key,
                thread=said.thread,
                subject=reply_subject(mail.ticket_number, mail.subject),
                body=body,
                sent_at=now(),
                automatic=automatic,
                files=files,
            )
        )

    async def _reply_address(self, mail: mail_queue.DueMail) -> str:
        """The mailbox's address with the issue's signed token (F's threading reads it)."""
        if self._thread_key is None:
            self._thread_key = await self._server_key.derived(issue_tokens.PURPOSE)
        token = issue_tokens.issue_token(
            self._thread_key, mail.workspace_id, mail.issue_id, mail.ticket_number
        )
        local, domain = mail.mailbox_address.rsplit("@", 1)
        return f"{local}+{token}@{domain}"

    async def _close_idle(self, unused_for: float) -> None:
        """Close the connections unused for `unused_for` seconds (all with 0)."""
        if not self._idle:
            return
        moment = time.monotonic()
        old = [client for client, used in self._idle if moment - used >= unused_for]
        self._idle = [(client, used) for client, used in self._idle if moment - used < unused_for]
        for client in old:
            await _closed(client)

    def _kept(self) -> aiosmtplib.SMTP | None:
        """An open connection not in use, the latest used first."""
        while self._idle:
            client, _ = self._idle.pop()
            if client.is_connected:
                return client
            client.close()
        return None

    async def _connected(self) -> aiosmtplib.SMTP:
        server = self._server
        assert server is not None
        client = aiosmtplib.SMTP(
            hostname=server.host,
            port=server.port,
            username=server.username,
            password=server.password,
            use_tls=server.tls,
            start_tls=server.starttls,
            timeout=self._timeout,
        )
        try:
            await client.connect()  # and logs in, with a user name
        except BaseException:
            client.close()  # refused at the greeting or the login: nothing is kept open
            raise
        return client

    async def _send(self, raw: bytes, sender: str, recipient: str) -> Answer:
        client = self._kept()
        if client is not None:
            try:
                await client.sendmail(sender, [recipient], raw)
            except (aiosmtplib.SMTPServerDisconnected, aiosmtplib.SMTPTimeoutError, OSError):
                # Closed by the server while it waited, most likely: sent on a new one.
                client.close()
                client = None
            except Exception as error:
                return await self._answer(client, error)
            else:
                self._keep(client)
                return Answer(True)
        try:
            client = await self._connected()
            await client.sendmail(sender, [recipient], raw)
        except Exception as error:
            return await self._answer(client, error)
        self._keep(client)
        return Answer(True)

    async def _answer(self, client: aiosmtplib.SMTP | None, error: Exception) -> Answer:
        """What a failed send means; the connection is kept when it is still good for the
        next mail (aiosmtplib resets the envelope after a refusal)."""
        keep = False
        answer: Answer
        if isinstance(error, aiosmtplib.SMTPRecipientsRefused):
            codes = [recipient.code for recipient in error.recipients]
            said = "; ".join(f"{r.code} {r.message}" for r in error.recipients)
            answer, keep = Answer(False, all(code >= 500 for code in codes), said), True
        elif isinstance(error, aiosmtplib.SMTPAuthenticationError):
            # Our configuration, not the recipient: retried (and logged) until it is fixed.
            answer = Answer(False, False, f"{error.code} authentication failed")
        elif isinstance(error, aiosmtplib.SMTPResponseException):
            said = f"{error.code} {error.message}"
            # 421: the server is closing the connection.
            answer, keep = Answer(False, error.code >= 500, said), error.code != 421
        elif isinstance(error, aiosmtplib.SMTPException | OSError):
            # Not reached, timed out, cut off: the server said nothing final.
            answer = Answer(False, False, f"{type(error).__name__}: {error}")
        else:
            if client is not None:
                await _closed(client)
            raise error
        if client is not None:
            if keep:
                self._keep(client)
            else:
                client.close()
        return answer

    def _keep(self, client: aiosmtplib.SMTP) -> None:
        if client.is_connected and not self._stopping:
            self._idle.append((client, time.monotonic()))
        else:
            client.close()


async def _closed(client: aiosmtplib.SMTP) -> None:
    """QUIT, as a client leaving politely does; closed whatever the server says."""
    try:
        if client.is_connected:
            await asyncio.wait_for(client.quit(), 5.0)
    except Exception:
        logger.debug("Closing a connection to the mail server failed.", exc_info=True)
    finally:
        client.close()
