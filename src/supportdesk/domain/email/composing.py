"""The mail the dispatcher sends. Its content (the text, the files, their MIME structure and
transfer encodings) is built by the standard library (`EmailMessage`, `policy.default`); its
nine envelope headers are written here, with the standard library's helpers where a value
needs quoting, encoding or folding (`formataddr`, `Header`). Writing them costs a tenth of
setting them through the header registry, which parses every address and id it is given
(docs/performance.md, "Outbound mail"). No header can be smuggled in: what people wrote
(names, subjects) is made one line first, and a value with a line break is refused."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from email.header import Header
from email.headerregistry import Address
from email.message import EmailMessage
from email.utils import format_datetime, formataddr

from supportdesk.domain.email.headers import POLICY

# Mail a machine sent on its own, never in answer to a person's act (RFC 3834).
AUTO_REPLIED = "auto-replied"
MAX_SUBJECT = 200
# Line breaks, runs of spaces and control characters, which no header shows.
_SPACES = re.compile(r"[\s\x00-\x1f\x7f]+")
# References grows with the thread; past this many ids the oldest middle ones go (RFC 5322
# keeps the first, which names the thread, and the latest).
MAX_REFERENCES = 20
# A header line longer than this is folded (RFC 5322's "SHOULD", as `policy.default`).
LINE = 78


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
    """A value people wrote, fit for a header: line breaks, runs of spaces and control
    characters become one space."""
    return _SPACES.sub(" ", value).strip()


def reply_subject(ticket_number: int, subject: str) -> str:
    """`Re: [#42] subject`, the ticket number there for mail clients that drop headers."""
    return one_line(f"Re: [#{ticket_number}] {subject}")[:MAX_SUBJECT]


def _plain(value: str) -> bool:
    """Text a reader takes as it is: printable ASCII that cannot pass for an encoded word."""
    return value.isascii() and value.isprintable() and "=?" not in value


def _header(name: str, value: str) -> str:
    """An unstructured header: as it reads when it is plain and fits its line, folded at
    its spaces when it is plain and long, otherwise encoded (and folded) by the standard
    library's `Header`."""
    if "\r" in value or "\n" in value:
        raise ValueError(f"a line break in the {name} header")
    if not _plain(value):
        # All of it in encoded words: text that looks like one is kept as it was written.
        return f"{name}: {Header(value, 'utf-8', header_name=name).encode()}\n"
    if len(name) + len(value) + 2 <= LINE:
        return f"{name}: {value}\n"
    return _folded(name, value)


def _folded(name: str, value: str) -> str:
    """A plain header folded before the spaces that keep its lines within LINE (a word
    longer than a line stays whole). The standard library's `Header` folds alike at five
    times the cost."""
    lines = []
    line = f"{name}:"
    for word in value.split(" "):
        if len(line) + 1 + len(word) > LINE and line.strip():
            lines.append(line)
            line = ""
        line += f" {word}"
    lines.append(line)
    return "\n".join(lines) + "\n"


def _address(name: str, field: str, address: str) -> str:
    """`Name <address>`, the name quoted where it must be; a name to encode as the standard
    library writes it (which keeps its plain words plain, as readers expect)."""
    if "\r" in address or "\n" in address:
        raise ValueError(f"a line break in the {field} address")
    name = one_line(name)
    if _plain(name):
        return _header(field, formataddr((name, address)))
    written = POLICY.header_factory(field, Address(display_name=name, addr_spec=address))
    return str(written.fold(policy=POLICY))


def _references(thread: Sequence[str]) -> list[str]:
    if len(thread) <= MAX_REFERENCES:
        return list(thread)
    return [thread[0], *thread[-(MAX_REFERENCES - 1) :]]


def _content(mail: Outgoing) -> bytes:
    """The text and files, with their Content-Type, transfer encodings and MIME-Version."""
    content = EmailMessage(policy=POLICY)
    content.set_content(mail.body)
    for file in mail.files:
        maintype, _, subtype = file.content_type.partition("/")
        content.add_attachment(
            file.data,
            maintype=maintype or "application",
            subtype=subtype or "octet-stream",
            filename=one_line(file.file_name),
        )
    return content.as_bytes()


def compose(mail: Outgoing) -> bytes:
    """The whole mail, as the SMTP server is handed it."""
    headers = [
        _address(mail.sender_name, "From", mail.sender_address),
        _header("To", mail.recipient),
        _address(mail.sender_name, "Reply-To", mail.reply_to),
        _header("Subject", one_line(mail.subject)),
        _header("Date", format_datetime(mail.sent_at)),
        _header("Message-ID", f"<{mail.message_key}>"),
    ]
    references = _references(mail.thread)
    if references:
        headers.append(_header("In-Reply-To", f"<{references[-1]}>"))
        headers.append(_header("References", " ".join(f"<{key}>" for key in references)))
    if mail.automatic:
        headers.append(_header("Auto-Submitted", AUTO_REPLIED))
    return "".join(headers).encode("ascii") + _content(mail)
