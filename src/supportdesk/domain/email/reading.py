"""Reading a raw RFC 5322 message with the standard library (`policy.default`): who sent
it, what it answers, its text and HTML, its files, and the signs of a machine sender.

Nothing here trusts the mail: header values are single lines without control characters,
sizes are counted from the decoded bytes (never a declared size), a charset Python does not
know falls back to a lossless-enough decoding, and what would make the parser slow is
counted in the bytes before it runs: a header block over MAX_HEADER_BYTES, more than
MAX_ENCODED_WORDS encoded words, or more than MAX_PARTS parts (lines may end in a bare CR,
which the parser splits on too)."""

from __future__ import annotations

import hashlib
import mimetypes
import re
from dataclasses import dataclass, field
from email import message_from_bytes
from email.header import decode_header, make_header
from email.message import EmailMessage, Message
from email.utils import getaddresses, parseaddr

from supportdesk.domain.email.headers import POLICY
from supportdesk.domain.email.html import html_to_text, sanitised_html
from supportdesk.domain.validation import BIDI_CONTROLS, CONTROL_CHARACTERS, is_email

MAX_PARTS = 500
# Postfix's default header_size_limit. Parsing costs about 5 ms per KiB of address lines.
MAX_HEADER_BYTES = 100 * 1024
# Decoding costs more than linear time in a header's encoded words (RFC 2047): 2,000 in
# one Subject took 0.2 s and 30 MB. Mail with names and subjects in other charsets holds
# tens of them.
MAX_ENCODED_WORDS = 1000
MAX_KEY = 255
_CONTROL = re.compile(f"[{CONTROL_CHARACTERS}]+")
_BIDI = re.compile(f"[{BIDI_CONTROLS}]+")
_MESSAGE_ID = re.compile(r"<([^<>\s]{1,250})>")
_ANGLE_ADDRESS = re.compile(r"<\s*([^<>\s]+@[^<>\s]+?)\s*>\s*$")


class UnreadableMail(Exception):
    """The message cannot be read as mail; it is parked, kept raw, with this reason."""


@dataclass(frozen=True, slots=True)
class MailFile:
    file_name: str
    content_type: str
    data: bytes
    content_id: str | None = None


@dataclass(frozen=True, slots=True)
class ReadMail:
    message_key: str
    sender: str
    sender_name: str | None
    subject: str
    recipients: tuple[str, ...]
    # The Message-IDs it answers: In-Reply-To first, then References, newest first.
    answers: tuple[str, ...]
    text: str
    html: str | None
    files: tuple[MailFile, ...] = ()
    # Why it was sent by a machine (RFC 3834 and the like); empty for a person's mail.
    automatic: tuple[str, ...] = ()
    is_delivery_report: bool = False


def one_line(value: object, limit: int) -> str:
    """A header's value as one line: control characters (CR, LF, NUL, …) become spaces."""
    return " ".join(_CONTROL.sub(" ", str(value)).split())[:limit]


def message_key(raw: bytes, header: object) -> str:
    """The Message-ID without its angle brackets, or a digest of the bytes when it has
    none we can use."""
    found = _MESSAGE_ID.search(str(header or ""))
    if found:
        return found.group(1)
    return "sha256:" + hashlib.sha256(raw).hexdigest()


def _ids(value: object) -> list[str]:
    return _MESSAGE_ID.findall(str(value or ""))


def _header(mail: Message, name: str) -> str:
    """The header's decoded value; when the policy's parser refuses it (an address with a
    line break in its encoded name), its raw text decoded word by word."""
    try:
        value = mail.get(name)
    except (IndexError, ValueError, TypeError, LookupError, AttributeError):
        value = _raw_header(mail, name)
    return "" if value is None else str(value)


def _raw_header(mail: Message, name: str) -> str | None:
    for found, value in mail.raw_items():
        if found.lower() == name.lower():
            try:
                return str(make_header(decode_header(_unescaped(value))))
            except (ValueError, LookupError, UnicodeError):
                return _unescaped(value)
    return None


def _sender(mail: Message) -> tuple[str, str | None]:
    """The From address and name, parsed before the name's encoded words are decoded: a
    line break or a colon inside them stays part of the name."""
    raw = one_line(
        _unescaped(next((v for n, v in mail.raw_items() if n.lower() == "from"), "")), 2000
    )
    angle = _ANGLE_ADDRESS.search(raw)
    name, address = (raw[: angle.start()], angle.group(1)) if angle else parseaddr(raw)
    address = address.strip()
    if not is_email(address):
        raise UnreadableMail("no usable From address")
    try:
        decoded = str(make_header(decode_header(name.strip())))
    except (ValueError, LookupError, UnicodeError):
        decoded = name
    clean_name = one_line(decoded, 200).strip("\"' ") or None
    return address, clean_name


def _unescaped(value: object) -> str:
    """A raw header's text: 8-bit bytes the parser kept as surrogates read as UTF-8, or as
    windows-1252 when they are not (older mailers wrote names in their own charset)."""
    text = str(value)
    try:
        data = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return text
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("windows-1252", errors="replace")


_RECIPIENT_HEADERS = ("to", "cc", "delivered-to", "x-original-to", "envelope-to")
# Recipients beyond these are not looked at for an issue's token.
MAX_RECIPIENTS = 100


def _recipients(mail: Message) -> tuple[str, ...]:
    """The addresses of the recipient headers, from their raw text: the policy's parser
    takes about 5 ms per KiB of addresses, and only the addresses are needed."""
    values = [
        one_line(_unescaped(value), 2000)
        for name, value in mail.raw_items()
        if name.lower() in _RECIPIENT_HEADERS
    ]
    found = [address.lower() for _, address in getaddresses(values) if "@" in address]
    return tuple(dict.fromkeys(found))[:MAX_RECIPIENTS]


def _decoded_text(part: Message) -> str:
    """The part's text, its line ends made `\n` (SMTP carries CRLF)."""
    data = part.get_payload(decode=True)
    if not isinstance(data, bytes):
        return ""
    charset = part.get_content_charset() or "us-ascii"
    try:
        text = data.decode(charset, errors="replace")
    except LookupError:  # a charset Python does not know
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = data.decode("windows-1252", errors="replace")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _file_name(part: Message, index: int) -> str:
    try:
        name = part.get_filename()
    except (IndexError, ValueError, TypeError, LookupError):
        name = None
    name = _BIDI.sub("", one_line(name or "", 255))
    name = re.split(r"[/\\]", name)[-1].strip().lstrip(".")
    if name:
        return name
    extension = mimetypes.guess_extension(part.get_content_type()) or ".bin"
    return f"part-{index}{extension}"


def _is_file(part: Message, disposition: str | None) -> bool:
    if disposition == "attachment":
        return True
    maintype = part.get_content_maintype()
    if maintype in ("image", "audio", "video", "application", "font", "model"):
        return True
    return part.get_filename() is not None


def _count_parts(mail: Message) -> int:
    count = 0
    for _ in mail.walk():
        count += 1
        if count > MAX_PARTS:
            raise UnreadableMail(f"more than {MAX_PARTS} MIME parts")
    return count


@dataclass(slots=True)
class _Body:
    plain: list[str] = field(default_factory=list)
    html: list[str] = field(default_factory=list)
    files: list[MailFile] = field(default_factory=list)


def _collect(mail: Message) -> _Body:
    body = _Body()
    for index, part in enumerate(mail.walk()):
        if part.is_multipart():
            continue
        disposition = part.get_content_disposition()
        content_type = part.get_content_type()
        is_text = content_type in ("text/plain", "text/html") and disposition != "attachment"
        if is_text and part.get_filename() is None:
            target = body.plain if content_type == "text/plain" else body.html
            target.append(_decoded_text(part))
            continue
        if content_type.startswith("message/delivery-status") or content_type in (
            "message/rfc822",
            "text/rfc822-headers",
        ):
            continue
        if _is_file(part, disposition) or content_type.startswith("text/"):
            data = part.get_payload(decode=True)
            if isinstance(data, bytes) and data:
                content_id = one_line(part.get("Content-ID", ""), 250).strip("<> ") or None
                body.files.append(MailFile(_file_name(part, index), content_type, data, content_id))
    return body


def _automatic_signs(mail: Message, is_report: bool) -> tuple[str, ...]:
    """RFC 3834's signs that a machine sent it, and the other marks bulk senders use."""
    signs = []
    auto = one_line(_header(mail, "Auto-Submitted"), 100).lower()
    if auto and auto.split(";")[0].strip() != "no":
        signs.append(f"Auto-Submitted: {auto}")
    precedence = one_line(_header(mail, "Precedence"), 100).lower()
    if precedence in ("bulk", "junk", "list"):
        signs.append(f"Precedence: {precedence}")
    if mail.get("List-Id") is not None:
        signs.append("List-Id")
    if is_report:
        signs.append("delivery-status report")
    return_path = mail.get_all("Return-Path", failobj=None)
    if return_path is not None and one_line(return_path[0], 300).strip() in ("<>", ""):
        signs.append("empty Return-Path")
    if mail.get("X-Autoreply") is not None or mail.get("X-Autorespond") is not None:
        signs.append("X-Autoreply")
    return tuple(signs)


def _is_delivery_report(mail: Message) -> bool:
    return mail.get_content_type() == "multipart/report" and (
        (mail.get_param("report-type") or "") == "delivery-status"
    )


# The Message-ID of the mail a delivery report returns, in its returned headers.
_RETURNED_ID = re.compile(r"^Message-ID:\s*<([^<>\s]{1,250})>", re.IGNORECASE | re.MULTILINE)


def _returned_ids(mail: Message) -> list[str]:
    """The Message-IDs of the returned mail's headers (`text/rfc822-headers` or the whole
    `message/rfc822`) in a delivery report: the mail of ours that bounced."""
    found: list[str] = []
    for part in mail.walk():
        kind = part.get_content_type()
        if kind == "message/rfc822":
            inner = part.get_payload()
            head = inner[0] if isinstance(inner, list) and inner else None
            if isinstance(head, Message):
                found += _ids(head.get("Message-ID", ""))
        elif kind == "text/rfc822-headers":
            text = part.get_payload(decode=True) or b""
            if isinstance(text, bytes):
                found += _RETURNED_ID.findall(text.decode("latin-1"))
    return found


def read_mail(raw: bytes) -> ReadMail:
    """What the pipeline needs of a raw message; UnreadableMail when it is not mail."""
    _refuse_costly(raw)
    try:
        return _read(raw)
    except UnreadableMail:
        raise
    except Exception as error:  # whatever else mail holds that the library refuses
        raise UnreadableMail(f"unreadable ({type(error).__name__})") from None


def _refuse_costly(raw: bytes) -> None:
    """UnreadableMail for what would cost the parser seconds or gigabytes."""
    end = _HEADER_END.search(raw, 0, MAX_HEADER_BYTES + 4)
    if end is None and len(raw) > MAX_HEADER_BYTES:
        raise UnreadableMail(f"a header block over {MAX_HEADER_BYTES // 1024} KiB")
    if raw.count(b"=?") > MAX_ENCODED_WORDS:
        raise UnreadableMail(f"more than {MAX_ENCODED_WORDS} encoded words")
    # Parsing costs about a millisecond a part: count the delimiter lines first.
    if raw.count(b"\n--") + raw.count(b"\r--") > MAX_PARTS:
        raise UnreadableMail(f"more than {MAX_PARTS} MIME parts")


_HEADER_END = re.compile(rb"\r?\n\r?\n|\r\r")


def _read(raw: bytes) -> ReadMail:
    mail = message_from_bytes(raw, policy=POLICY)
    if not isinstance(mail, EmailMessage) or not mail.keys():
        raise UnreadableMail("no headers")
    _count_parts(mail)
    sender, sender_name = _sender(mail)
    report = _is_delivery_report(mail)
    body = _collect(mail)
    html = "\n".join(body.html) if body.html else None
    text = "\n".join(body.plain).strip() if body.plain else ""
    if not text and html:
        text = html_to_text(html)
    in_reply_to = _ids(_header(mail, "In-Reply-To"))
    references = list(reversed(_ids(_header(mail, "References"))))
    returned = _returned_ids(mail) if report else []
    answers = tuple(dict.fromkeys(returned + in_reply_to + references))
    return ReadMail(
        message_key=message_key(raw, _header(mail, "Message-ID")),
        sender=sender,
        sender_name=sender_name,
        subject=one_line(_header(mail, "Subject"), 255),
        recipients=_recipients(mail),
        answers=answers[:50],
        text=text,
        html=sanitised_html(html) if html else None,  # None too when nested too deep
        files=tuple(body.files),
        automatic=_automatic_signs(mail, report),
        is_delivery_report=report,
    )


__all__ = ["MailFile", "ReadMail", "UnreadableMail", "one_line", "read_mail"]
