"""The SMTP listener (aiosmtpd): mail for a mailbox's address or its plus forms goes into
the pipeline; any other recipient is refused at RCPT with 550, a message over the size
limit with 552 (aiosmtpd counts DATA as it comes) and nothing of it is kept. A transaction
takes at most MAX_RECIPIENTS recipients (RFC 5321's minimum), each looked up once.

Anyone who reaches the port may connect, and aiosmtpd holds a message in memory while it
arrives, so a worker holds at most MAX_SESSIONS sessions, MAX_SESSIONS_PER_CLIENT of one
address; the next is answered 421 and closed, and the sending server tries again later. A
session that names MAX_REFUSED_RECIPIENTS unknown recipients is closed with 421: each costs
a look-up, and a sender that guesses addresses has no more to learn here. At most
MAX_DATA_AT_ONCE messages arrive at once in a worker (each held in memory, several times its
size, until it is filed): a DATA beyond them waits for one to be filed before it is answered
354 (the mail server the listener sits behind sends from one address, over many sessions),
and is answered 451 only after DATA_WAIT_SECONDS, well within an MTA's patience.

Every worker of `serve` listens on the same port (SO_REUSEPORT), as for HTTP: the kernel
spreads connections over them, and each files mail with its own database pool."""

from __future__ import annotations

import asyncio
import logging
import socket
from typing import Any

from aiosmtpd.smtp import SMTP, Envelope, Session, syntax

from supportdesk.domain.email.intake import MailIntake
from supportdesk.domain.email.pipeline import MailboxGone, TooLarge
from supportdesk.domain.mailboxes import Mailbox, mailbox_for_recipient

log = logging.getLogger("supportdesk.smtp")

REFUSED_RECIPIENT = "550 5.1.1 No such mailbox here"
TOO_LARGE = "552 5.3.4 Message too big"
TRY_LATER = "451 4.3.0 Could not take the message now; try again later"
ACCEPTED = "250 2.0.0 Message accepted"
TOO_MANY_RECIPIENTS = "452 4.5.3 Too many recipients"
BUSY = b"421 4.7.0 Too many connections; try again later\r\n"
MAX_RECIPIENTS = 100
MAX_REFUSED_RECIPIENTS = 20
MAX_DATA_AT_ONCE = 8
DATA_WAIT_SECONDS = 60.0  # Postfix waits 120 s for the answer to DATA
BUSY_DATA = "451 4.3.2 Too many messages arriving at once; try again later"
TOO_MANY_REFUSED = "421 4.7.0 Too many unknown recipients; closing"
MAX_SESSIONS = 100
MAX_SESSIONS_PER_CLIENT = 20


class InboundHandler:
    """aiosmtpd's hooks: check each RCPT against the mailboxes, file the DATA."""

    def __init__(self, intake: MailIntake) -> None:
        self.intake = intake

    async def handle_RCPT(
        self,
        server: SMTP,
        session: Session,
        envelope: Envelope,
        address: str,
        rcpt_options: list[str],
    ) -> str:
        if len(envelope.rcpt_tos) >= MAX_RECIPIENTS:
            return TOO_MANY_RECIPIENTS
        mailbox = await mailbox_for_recipient(self.intake.db, address)
        if mailbox is None:
            if isinstance(server, CountedSMTP) and server.refused_one():
                transport = server.transport
                if transport is not None:
                    # Closed once the answer is written: close() sends what is buffered.
                    asyncio.get_running_loop().call_soon(transport.close)
                return TOO_MANY_REFUSED
            return REFUSED_RECIPIENT
        envelope.rcpt_tos.append(address)
        _mailboxes(envelope)[address] = mailbox
        return "250 2.1.5 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        raw = envelope.original_content or b""
        if isinstance(raw, str):
            raw = raw.encode("utf-8", "surrogateescape")
        by_mailbox: dict[str, tuple[Mailbox, list[str]]] = {}
        for address, mailbox in _mailboxes(envelope).items():
            by_mailbox.setdefault(mailbox.id, (mailbox, []))[1].append(address)
        gone = 0
        try:
            for mailbox, addresses in by_mailbox.values():
                try:
                    await self.intake.receive(mailbox, raw, "smtp", addresses)
                except MailboxGone:
                    gone += 1
        except TooLarge:
            return TOO_LARGE
        except Exception:
            log.exception("mail could not be taken")
            return TRY_LATER
        # SMTP answers DATA once for all recipients: refused only when no mailbox took it.
        return REFUSED_RECIPIENT if gone == len(by_mailbox) else ACCEPTED


def _mailboxes(envelope: Envelope) -> dict[str, Mailbox]:
    found: dict[str, Mailbox] | None = getattr(envelope, "supportdesk_mailboxes", None)
    if found is None:
        found = {}
        envelope.supportdesk_mailboxes = found  # type: ignore[attr-defined]
    return found


class Sessions:
    """The sessions a worker holds: in all, and by client address; and the places of the
    messages arriving at once."""

    def __init__(self, most: int = MAX_SESSIONS, most_per_client: int = MAX_SESSIONS_PER_CLIENT):
        self.most = most
        self.most_per_client = most_per_client
        self.held = 0
        self.by_client: dict[str, int] = {}
        self.arriving = asyncio.Semaphore(MAX_DATA_AT_ONCE)

    def admit(self, client: str) -> bool:
        held = self.by_client.get(client, 0)
        if held >= self.most_per_client or self.held >= self.most:
            return False
        self.by_client[client] = held + 1
        self.held += 1
        return True

    def leave(self, client: str) -> None:
        self.held -= 1
        held = self.by_client.pop(client) - 1
        if held:
            self.by_client[client] = held


class CountedSMTP(SMTP):
    """aiosmtpd's session, admitted by `Sessions` once connected (through the public
    protocol methods only, before and after aiosmtpd's own)."""

    def __init__(self, handler: InboundHandler, sessions: Sessions, **options: Any) -> None:
        super().__init__(handler, **options)
        self._sessions = sessions
        self._client: str | None = None
        self._refused = 0

    @syntax("DATA")  # as aiosmtpd's own, so that HELP still lists it
    async def smtp_DATA(self, arg: str) -> None:
        # aiosmtpd's DATA command, wrapped (its command methods are its extension point;
        # the minor version is pinned): a message is read into memory whole.
        if self.envelope is None or not self.envelope.rcpt_tos:  # refused (503), nothing read
            await super().smtp_DATA(arg)
            return
        arriving = self._sessions.arriving
        try:
            async with asyncio.timeout(DATA_WAIT_SECONDS):
                await arriving.acquire()
        except TimeoutError:
            await self.push(BUSY_DATA)
            return
        try:
            await super().smtp_DATA(arg)
        finally:
            arriving.release()

    def refused_one(self) -> bool:
        """Count a refused recipient; True once the session has named too many."""
        self._refused += 1
        return self._refused >= MAX_REFUSED_RECIPIENTS

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        peer = transport.get_extra_info("peername")
        client = str(peer[0]) if peer else ""
        if self._sessions.admit(client):
            self._client = client
            return
        log.warning("SMTP session refused: too many from %s or in all", client)
        assert isinstance(transport, asyncio.WriteTransport)
        transport.write(BUSY)  # before aiosmtpd's greeting, which its task writes later
        transport.close()

    def connection_lost(self, error: Exception | None) -> None:
        super().connection_lost(error)
        if self._client is not None:
            self._sessions.leave(self._client)
            self._client = None


def parse_listen(value: str) -> tuple[str, int]:
    """`host:port` (`[::1]:2525` for IPv6)."""
    host, _, port = value.rpartition(":")
    if not host or not (port.isascii() and port.isdigit()):
        raise ValueError(f"SUPPORTDESK_SMTP_LISTEN is host:port, not {value!r}")
    return host.strip("[]"), int(port)


class SmtpListener:
    """The listening server, started and stopped with the application."""

    def __init__(
        self,
        intake: MailIntake,
        listen: str,
        hostname: str | None = None,
    ) -> None:
        self.intake = intake
        self.host, self.port = parse_listen(listen)
        self.hostname = hostname
        self.sessions = Sessions()
        self._server: asyncio.base_events.Server | None = None

    def _protocol(self) -> Any:
        return CountedSMTP(
            InboundHandler(self.intake),
            self.sessions,
            data_size_limit=self.intake.max_message_bytes,
            hostname=self.hostname,
            ident="supportdesk ESMTP",
            enable_SMTPUTF8=True,
        )

    async def start(self) -> None:
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind((self.host, self.port))
        self.port = sock.getsockname()[1]
        loop = asyncio.get_running_loop()
        self._server = await loop.create_server(self._protocol, sock=sock)
        log.info("SMTP listener on %s:%s", self.host, self.port)

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
