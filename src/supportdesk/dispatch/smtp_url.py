"""`SUPPORTDESK_SMTP_URL`: where the dispatcher hands its mail over (docs/email.md).

`smtp://user:password@host:587?starttls=true`, `smtps://user:password@host:465` (TLS from
the first byte) or `smtp://host:25`; user and password percent-encoded. The password lives
in the configuration only and is never shown: `str()` and `repr()` leave it out."""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import parse_qs, unquote, urlsplit

TRUE = frozenset({"1", "true", "yes", "on"})
FALSE = frozenset({"0", "false", "no", "off"})


class SmtpUrlError(ValueError):
    """A URL that names no SMTP server; its message never holds the password."""


@dataclass(frozen=True, slots=True)
class SmtpServer:
    host: str
    port: int
    username: str | None
    password: str | None = field(repr=False)
    # TLS from the first byte (smtps), or STARTTLS after the greeting.
    tls: bool
    starttls: bool

    def __str__(self) -> str:
        scheme = "smtps" if self.tls else "smtp"
        user = f"{self.username}:***@" if self.username else ""
        return f"{scheme}://{user}{self.host}:{self.port}"


def smtp_server(url: str) -> SmtpServer:
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:  # not chained: the error would carry the URL, password and all
        raise SmtpUrlError(
            "SUPPORTDESK_SMTP_URL is not a URL (smtp://user:password@host:port)"
        ) from None
    if parts.scheme not in ("smtp", "smtps") or not parts.hostname:
        raise SmtpUrlError("SUPPORTDESK_SMTP_URL must be smtp://… or smtps://… with a host")
    query = {key.lower(): values[-1].lower() for key, values in parse_qs(parts.query).items()}
    starttls = query.get("starttls", "false")
    if starttls not in TRUE | FALSE:
        raise SmtpUrlError("starttls in SUPPORTDESK_SMTP_URL is true or false")
    tls = parts.scheme == "smtps"
    if parts.password and not tls and starttls not in TRUE:
        # aiosmtplib would log in over the bare connection: the password in clear.
        raise SmtpUrlError(
            "SUPPORTDESK_SMTP_URL holds a password: use smtps://, or smtp://…?starttls=true,"
            " so that it never crosses in clear"
        )
    return SmtpServer(
        host=parts.hostname,
        port=port or (465 if tls else 25),
        username=unquote(parts.username) if parts.username else None,
        password=unquote(parts.password) if parts.password else None,
        tls=tls,
        starttls=starttls in TRUE and not tls,
    )
