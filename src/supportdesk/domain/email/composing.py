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
from email.message import EmailMessage
from email.utils import format_datetime, formataddr

from supportdesk.domain.email.headers import POLICY
from supportdesk.domain.validation import is_email

# Mail a machine sent on its own, never in answer to a person's act (RFC 3834).
AUTO_REPLIED = "auto-replied"
MAX_SUBJECT = 200
# Line breaks, runs of spaces and control characters, which no header shows.
_SPACES = re.compile(r"[\s\x00-\x1f\x7f]+")
# References grows with the thread; past this many ids the oldest middle ones go (RFC 5322
# keeps the first, which names the thread, and the latest).
MAX_REFERENCES = 20
# A header line longer than this is folded (RFC 5322's "SHOULD", as `policy.default`);
# encoded words are folded within ENCODED_LINE, so that none is longer than RFC 2047's 75.
LINE = 78
ENCODED_LINE = 76


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


def sendable(address: str) -> bool:
    """An address this composer writes as it is, in a header and in the SMTP envelope: one
    mailbox's address (no character that reads it as another) in plain ASCII (no
    SMTPUTF8)."""
    return _plain(address) and is_email(address)


def _is_message_id(key: str) -> bool:
    """A Message-ID's text between its angle brackets, fit to be written as it is."""
    return _plain(key) and " " not in key and "<" not in key and ">" not in key


def _unstructured(name: str, value: str) -> str:
    """Text such as a subject: as it reads when it is plain, otherwise all of it in encoded
    words (text that looks like one is kept as it was written)."""
    if "\r" in value or "\n" in value:
        raise ValueError(f"a line break in the {name} header")
    if _plain(value):
        return _folded(name, value)
    encoded = Header(value, "utf-8", maxlinelen=ENCODED_LINE, header_name=name).encode()
    return f"{name}: {encoded}\n"


def _verbatim(name: str, value: str) -> str:
    """A header of addresses or ids, written as it is; ValueError when it is not plain."""
    if not _plain(value):
        raise ValueError(f"the {name} header cannot be written: {value!r}")
    return _folded(name, value)


def _folded(name: str, value: str) -> str:
    """A plain header on one line when it fits, else folded before the spaces that keep
    its lines within LINE (the first word stays on the name's line; a word longer than a
    line stays whole). The standard library's `Header` folds alike at five times the cost."""
    line = f"{name}:"
    if len(line) + 1 + len(value) <= LINE:
        return f"{line} {value}\n"
    lines = []
    for index, word in enumerate(value.split(" ")):
        if index and len(line) + 1 + len(word) > LINE:
            lines.append(line)
            line = ""
        line += f" {word}"
    lines.append(line)
    return "\n".join(lines) + "\n"


def _address(name: str, field: str, address: str) -> str:
    """`Name <address>`: a plain name quoted where it must be, any other in encoded words
    (never through the header registry, which may drop a long name's quotes)."""
    if not sendable(address):
        raise ValueError(f"the {field} address cannot be written: {address!r}")
    name = one_line(name)
    if _plain(name):
        return _folded(field, formataddr((name, address)))
    encoded = Header(name, "utf-8", maxlinelen=ENCODED_LINE, header_name=field).encode()
    written = f"{field}: {encoded}"
    last_line = written.rsplit("\n", 1)[-1]
    space = " " if len(last_line) + len(address) + 3 <= LINE else "\n "
    return f"{written}{space}<{address}>\n"


def _references(thread: Sequence[str]) -> list[str]:
    """The thread's ids that can be written as they are (a sender may have given an odd
    one, which no reader would match), the first and the latest kept when there are many."""
    ids = [key for key in thread if _is_message_id(key)]
    if len(ids) <= MAX_REFERENCES:
        return ids
    return [ids[0], *ids[-(MAX_REFERENCES - 1) :]]


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
    """The whole mail, as the SMTP server is handed it. ValueError when an address cannot
    be written (it is not `sendable`)."""
    headers = [
        _address(mail.sender_name, "From", mail.sender_address),
        _verbatim("To", mail.recipient),
        _address(mail.sender_name, "Reply-To", mail.reply_to),
        _unstructured("Subject", one_line(mail.subject)),
        _verbatim("Date", format_datetime(mail.sent_at)),
        _verbatim("Message-ID", f"<{mail.message_key}>"),
    ]
    if not sendable(mail.recipient):
        raise ValueError(f"the To address cannot be written: {mail.recipient!r}")
    references = _references(mail.thread)
    if references:
        headers.append(_verbatim("In-Reply-To", f"<{references[-1]}>"))
        headers.append(_verbatim("References", " ".join(f"<{key}>" for key in references)))
    if mail.automatic:
        headers.append(_verbatim("Auto-Submitted", AUTO_REPLIED))
    return "".join(headers).encode("ascii") + _content(mail)
