"""Quoted history and signature of a reply, trimmed from the text of the thread (quotequail
finds where the quote starts; the untrimmed text is kept as `Message.email.originalText`).

quotequail leaves the line that introduces the quote ("On … wrote:", Outlook's
"-----Original Message-----" or rule of underscores) at the end of what it keeps:
those lines go too. A forwarded message is the content itself: never trimmed."""

from __future__ import annotations

import re

import quotequail

_FORWARDED = re.compile(
    r"^[ \t]*(-{2,}[ \t]*Forwarded message[ \t]*-{2,}|Begin forwarded message:)",
    re.IGNORECASE | re.M,
)
# Lines that only introduce what follows them.
_INTRODUCTIONS = (
    re.compile(r"^>?\s*On\b.*\bwrote:?\s*$", re.IGNORECASE),
    re.compile(r"^>?\s*Am\b.*\bschrieb.*:\s*$", re.IGNORECASE),
    re.compile(r"^>?\s*Le\b.*\ba écrit\s*:\s*$", re.IGNORECASE),
    re.compile(r"^\s*-{3,}\s*Original Message\s*-{3,}\s*$", re.IGNORECASE),
    re.compile(r"^\s*_{10,}\s*$"),
    re.compile(r"^\s*From:\s.*$", re.IGNORECASE),
)
# Gmail wraps a long "On …, Name <address> wrote:" over two lines.
_WRAPPED_ON = re.compile(r"^[ \t]*On\b[^\n]*\n[^\n]*\bwrote:[ \t]*$", re.IGNORECASE | re.M)
# Any sign of quoted history: without one (most new mail) the quote finder is not run,
# which costs about a quarter of a millisecond a line.
_ANY_QUOTE = re.compile(r"^[ \t]*(?:>|On\b|Am\b|Le\b|-{3,}|_{10,}|From:)", re.IGNORECASE | re.M)


def trimmed_reply(text: str) -> str:
    """The new part of a reply; the whole text when it holds nothing else."""
    if _FORWARDED.search(text):
        return text.strip()
    if "wrote:" not in text and not _ANY_QUOTE.search(text):
        return _without_signature(text).strip() or text.strip()
    parts = quotequail.quote(text)
    kept = "".join(part for shown, part in parts if shown) if parts else text
    if len(parts) > 1 or _WRAPPED_ON.search(kept):
        kept = _without_introduction(kept)
    kept = _without_signature(kept).strip()
    return kept or text.strip()


def _without_signature(text: str) -> str:
    """Up to the signature separator of RFC 3676 (a line of "-- ")."""
    head, separator, _ = text.partition("\n-- \n")
    return head if separator else text


def _without_introduction(text: str) -> str:
    text = _WRAPPED_ON.sub("", text).rstrip()
    lines = text.split("\n")
    while lines and (not lines[-1].strip() or any(p.match(lines[-1]) for p in _INTRODUCTIONS)):
        lines.pop()
    return "\n".join(lines)
