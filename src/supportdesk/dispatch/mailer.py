"""The mailer: the dispatcher role's sender of the outbox (docs/email.md, "Sending").

It looks at the outbox every POLL_SECONDS, leases what is due, builds each mail
(composing.py), hands it to `SUPPORTDESK_SMTP_URL` with aiosmtplib, and records the
outcome (a batch's delivered mails in one transaction). A server that answers 4xx, or
cannot be reached, gets the mail again on the webhooks' retry schedule
(`SUPPORTDESK_WEBHOOK_RETRY_SCHEDULE`); a 5xx fails it for good: `Message.email.status`
becomes `failed`, an internal note tells the agents and the event
`message.email_failed` tells integrations. The SMTP URL's password is never logged.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass
from datetime import datetime
from email.message import EmailMessage

import aiosmtplib

from supportdesk.auth.server_key import ServerKey
from supportdesk.config import Settings
from supportdesk.db import Database
from supportdesk.dispatch import mail_queue
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

    async def _run(self) -> None:
        while not self._stopping:
            try:
                taken = await mail_queue.take(self._db, now(), BATCH)
                if taken:
                    sent_at = await asyncio.gather(*(self._attempt(mail) for mail in taken))
                    await self._record_sent(list(zip(taken, sent_at, strict=True)))
                    continue
            except Exception:
                logger.exception("Taking mail from the outbox failed; trying again shortly.")
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
            built = await self._build(mail, reply_to)
            answer = await self._send(built.as_bytes(), reply_to, mail.recipient)
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

    async def _build(self, mail: mail_queue.DueMail, reply_to: str) -> EmailMessage:
        said = await mail_queue.content(self._db, mail)
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

    async def _send(self, raw: bytes, sender: str, recipient: str) -> Answer:
        server = self._server
        assert server is not None
        try:
            await aiosmtplib.send(
                raw,
                sender=sender,
                recipients=[recipient],
                hostname=server.host,
                port=server.port,
                username=server.username,
                password=server.password,
                use_tls=server.tls,
                start_tls=server.starttls,
                timeout=self._timeout,
            )
        except aiosmtplib.SMTPRecipientsRefused as refused:
            codes = [recipient.code for recipient in refused.recipients]
            said = "; ".join(f"{r.code} {r.message}" for r in refused.recipients)
            return Answer(False, all(code >= 500 for code in codes), said)
        except aiosmtplib.SMTPAuthenticationError as refused:
            # Our configuration, not the recipient: retried (and logged) until it is fixed.
            return Answer(False, False, f"{refused.code} authentication failed")
        except aiosmtplib.SMTPResponseException as response:
            return Answer(False, response.code >= 500, f"{response.code} {response.message}")
        except (aiosmtplib.SMTPException, OSError) as error:
            # Not reached, timed out, cut off: the server said nothing final.
            return Answer(False, False, f"{type(error).__name__}: {error}")
        return Answer(True)
