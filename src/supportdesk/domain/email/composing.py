"""The mail the dispatcher sends, built with the standard library (`policy.default`, its
headers parsed once: headers.py): every header is set through the header registry, which
refuses a line break in a value, and the values that come from people (names, subjects) are
made one line first, so no header can be smuggled in (docs/email.md)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from email.headerregistry import Address
from email.message import EmailMessage
from email.utils import format_datetime

from supportdesk.domain.email.headers import POLICY

# Mail a machine sent on its own, never in answer to a person's act (RFC 3834).
AUTO_REPLIED = "auto-replied"
MAX_SUBJECT = 200
_SPACES = re.compile(r"\s+")
# References grows with the thread; past this many ids the oldest middle ones go (RFC 5322
# keeps the first, which names the thread, and the latest).
MAX_REFERENCES = 20


@dataclass(frozen=True, slots=True)
class File:
    file_name: str
    content_type: str
    data: bytes


@dataclass(frozen=True, slots=True)
class Outgoing:
    """What one mail says; built into bytes by `compose`."""

    sender_address: str
    sender_name: str
    recipient: str
    reply_to: str
    message_key: str
    # Our message ids of the thread, oldest first (the one answered last).
    thread: Sequence[str]
    subject: str
    body: str
    sent_at: datetime
    automatic: bool = False
    files: Sequence[File] = ()


def one_line(value: str) -> str:
    """A value people wrote, fit for a header: line breaks and runs of spaces become one."""
    return _SPACES.sub(" ", value).strip()


def reply_subject(ticket_number: int, subject: str) -> str:
    """`Re: [#42] subject`, the ticket number there for mail clients that drop headers."""
    return one_line(f"Re: [#{ticket_number}] {subject}")[:MAX_SUBJECT]


def _address(name: str, address: str) -> Address:
    local, domain = address.rsplit("@", 1)
    return Address(display_name=one_line(name), username=local, domain=domain)


def _references(thread: Sequence[str]) -> list[str]:
    if len(thread) <= MAX_REFERENCES:
        return list(thread)
    return [thread[0], *thread[-(MAX_REFERENCES - 1) :]]


def compose(mail: Outgoing) -> EmailMessage:
    message = EmailMessage(policy=POLICY)
    # As text, which the policy parses once for every mail of the mailbox: the registry
    # parses an Address's text as well, so the header is the same.
    message["From"] = str(_address(mail.sender_name, mail.sender_address))
    message["To"] = mail.recipient
    message["Reply-To"] = _address(mail.sender_name, mail.reply_to)
    message["Subject"] = one_line(mail.subject)
    message["Date"] = format_datetime(mail.sent_at)
    message["Message-ID"] = f"<{mail.message_key}>"
    references = _references(mail.thread)
    if references:
        message["In-Reply-To"] = f"<{references[-1]}>"
        message["References"] = " ".join(f"<{key}>" for key in references)
    if mail.automatic:
        message["Auto-Submitted"] = AUTO_REPLIED
    message.set_content(mail.body)
    for file in mail.files:
        maintype, _, subtype = file.content_type.partition("/")
        message.add_attachment(
            file.data,
            maintype=maintype or "application",
            subtype=subtype or "octet-stream",
            filename=one_line(file.file_name),
        )
    return message
