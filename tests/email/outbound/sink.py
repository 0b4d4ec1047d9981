"""A real SMTP server for the tests (aiosmtpd, in a thread of its own) that keeps what it is
given and can be told to answer a recipient with an error a few times first."""

from __future__ import annotations

import socket
import threading
from dataclasses import dataclass, field
from email import message_from_bytes, policy
from email.message import EmailMessage
from typing import Any

from aiosmtpd.controller import Controller


@dataclass
class Received:
    sender: str
    recipients: list[str]
    raw: bytes

    @property
    def mail(self) -> EmailMessage:
        parsed = message_from_bytes(self.raw, policy=policy.default)
        assert isinstance(parsed, EmailMessage)
        return parsed


@dataclass
class _Handler:
    kept: list[Received] = field(default_factory=list)
    # By recipient: the answers to RCPT TO before it is taken (e.g. "451 4.3.0 busy").
    answers: dict[str, list[str]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    # How many times a client said EHLO: once per connection.
    greetings: int = 0
    # The connections that said EHLO, for hang_up.
    sessions: list[Any] = field(default_factory=list)

    async def handle_EHLO(
        self, server: Any, session: Any, envelope: Any, hostname: str, responses: list[str]
    ) -> list[str]:
        with self.lock:
            self.greetings += 1
            self.sessions.append(server)
        session.host_name = hostname
        return responses

    async def handle_RCPT(
        self, server: Any, session: Any, envelope: Any, address: str, options: Any
    ) -> str:
        with self.lock:
            planned = self.answers.get(address.lower())
            if planned:
                return planned.pop(0)
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        with self.lock:
            self.kept.append(
                Received(envelope.mail_from, list(envelope.rcpt_tos), bytes(envelope.content))
            )
        return "250 OK"


class Sink:
    def __init__(self) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = int(probe.getsockname()[1])
        self._handler = _Handler()
        self._controller = Controller(self._handler, hostname="127.0.0.1", port=self.port)
        self._controller.start()

    @property
    def url(self) -> str:
        return f"smtp://127.0.0.1:{self.port}"

    def answer(self, recipient: str, *answers: str) -> None:
        with self._handler.lock:
            self._handler.answers[recipient.lower()] = list(answers)

    def to(self, recipient: str) -> list[Received]:
        with self._handler.lock:
            return [one for one in self._handler.kept if recipient in one.recipients]

    @property
    def greetings(self) -> int:
        """EHLOs so far: the connections clients opened and introduced."""
        with self._handler.lock:
            return self._handler.greetings

    def hang_up(self) -> None:
        """Close every open connection, as a server that times idle clients out does."""
        with self._handler.lock:
            sessions, self._handler.sessions = self._handler.sessions, []
        for session in sessions:
            if session.transport is not None:
                self._controller.loop.call_soon_threadsafe(session.transport.close)

    def stop(self) -> None:
        self._controller.stop()
