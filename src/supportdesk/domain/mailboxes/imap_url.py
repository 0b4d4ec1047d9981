"""A mailbox's IMAP URL (`imaps://user:password@host[:port]/INBOX`, or
`imap://user:password@host[:port]/INBOX?starttls=true`): checked for form, and shown
without its password."""

from __future__ import annotations

from urllib.parse import SplitResult, urlsplit

SCHEMES = ("imap", "imaps")
MAX_URL = 2048
MASK = "***"
# The only query an IMAP URL may carry: `imap://` is always upgraded with STARTTLS (a
# password never crosses in clear), and saying so is allowed.
QUERIES = ("", "starttls=true")


def parsed_imap_url(url: str) -> SplitResult | None:
    """The URL's parts when it is an IMAP URL with a user and a host, else None."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 (raises ValueError for a port out of range)
    except ValueError:
        return None
    if parts.scheme not in SCHEMES or not parts.hostname or not parts.username:
        return None
    if any(character in url for character in "\r\n\t ") or parts.fragment:
        return None
    if parts.query.lower() not in QUERIES or (parts.query and parts.scheme != "imap"):
        return None
    return parts


def shown_imap_url(parts: SplitResult) -> str:
    """The URL with `***` where its password is."""
    user = parts.username or ""
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    port = f":{parts.port}" if parts.port else ""
    password = f":{MASK}" if parts.password is not None else ""
    query = f"?{parts.query.lower()}" if parts.query else ""
    return f"{parts.scheme}://{user}{password}@{host}{port}{parts.path}{query}"
