"""Where a mailbox's mail is fetched from, read from its (opened) IMAP URL."""

from __future__ import annotations

import ssl
from dataclasses import dataclass, field
from urllib.parse import unquote

from supportdesk.domain.mailboxes.imap_url import parsed_imap_url

IMAPS_PORT = 993
IMAP_PORT = 143


class BadImapUrl(ValueError):
    """A stored URL that is not (or no longer) an IMAP URL."""


@dataclass(frozen=True, slots=True)
class ImapSource:
    host: str
    port: int
    user: str
    password: str = field(repr=False)
    folder: str
    # IMAPS (TLS from the first byte) or IMAP upgraded with STARTTLS: never in clear.
    implicit_tls: bool


def imap_source(url: str) -> ImapSource:
    parts = parsed_imap_url(url)
    if parts is None or parts.hostname is None or parts.username is None:
        raise BadImapUrl("not an IMAP URL")
    implicit_tls = parts.scheme == "imaps"
    folder = unquote(parts.path.lstrip("/")) or "INBOX"
    return ImapSource(
        host=parts.hostname,
        port=parts.port or (IMAPS_PORT if implicit_tls else IMAP_PORT),
        user=unquote(parts.username),
        password=unquote(parts.password or ""),
        folder=folder,
        implicit_tls=implicit_tls,
    )


def tls_context(ca_file: str | None) -> ssl.SSLContext:
    """The system's trusted authorities, and those of `ca_file` besides; the host name is
    checked. There is no switch to skip verification: a mail server's password is at stake."""
    context = ssl.create_default_context()
    if ca_file:
        context.load_verify_locations(cafile=ca_file)
    return context
