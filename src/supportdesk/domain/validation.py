"""Collecting field errors so one answer names every bad field at once."""

from __future__ import annotations

import re

from supportdesk.domain.errors import DomainError, ErrorCode, FieldCode, FieldError

# Deliberately simple: one @, a dotted domain, no spaces. Deliverability is not our call,
# but an address must mean one mailbox wherever it is written: the local part has none of
# the characters that make a header or an SMTP path read it as something else (a comma
# makes two addresses of one, a parenthesis a comment, quotes a quoted string).
_EMAIL = re.compile(
    r"\A[^@\s<>()\[\],;:\\\"\x00-\x1f\x7f]+"
    r"@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+\Z"
)
_DOMAIN_LABEL = re.compile(r"\A[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\Z")
MAX_EMAIL = 254  # RFC 5321's limit on a path, so on an address
# C0 and C1 controls and Unicode's line and paragraph separators: nothing a name shows,
# and each may end a line for some reader of a header.
CONTROL_CHARACTERS = "\x00-\x1f\x7f-\x9f\u2028\u2029"
# Unicode's bidirectional marks, embeddings, overrides and isolates: in a file name they
# reorder what a reader sees ("invoice\u202egpj.exe" shows as "invoiceexe.jpg").
BIDI_CONTROLS = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"


class Validator:
    def __init__(self) -> None:
        self.errors: list[FieldError] = []
        self._notes: list[tuple[str, str]] = []

    def fail(self, field: str, code: FieldCode, note: str | None = None) -> None:
        """Record a bad field; `note`, a sentence, tells the caller what was wrong with it."""
        self.errors.append(FieldError(field, code))
        if note:
            self._notes.append((field, note))

    def text(self, field: str, value: str | None, max_length: int, *, required: bool) -> str | None:
        """Trimmed text, or None when absent; records REQUIRED / TOO_LONG / INVALID."""
        cleaned = value.strip() if value is not None else None
        if not cleaned:
            if required:
                self.fail(field, FieldCode.REQUIRED)
            return None
        if len(cleaned) > max_length:
            note = f"{field} takes at most {max_length:,} characters."
            self.fail(field, FieldCode.TOO_LONG, note)
        elif "\x00" in cleaned:
            # PostgreSQL text cannot hold NUL; refusing it here keeps both backends alike.
            self.fail(field, FieldCode.INVALID, f"{field} holds a NUL character.")
        return cleaned

    def email(self, field: str, value: str | None, *, required: bool) -> str | None:
        errors_before = len(self.errors)
        cleaned = self.text(field, value, MAX_EMAIL, required=required)
        if cleaned is not None and len(self.errors) == errors_before and not _EMAIL.match(cleaned):
            self.fail(field, FieldCode.INVALID, f"{field} is not an e-mail address.")
        return cleaned

    def check(self) -> None:
        if self.errors:
            names = ", ".join(sorted({error.field for error in self.errors}))
            message = " ".join([f"Invalid input: {names}.", *(note for _, note in self._notes)])
            raise DomainError(ErrorCode.VALIDATION_FAILED, message, self.errors, tuple(self._notes))


def is_email(value: str) -> bool:
    """One mailbox's address, as `Validator.email` takes it."""
    return len(value) <= MAX_EMAIL and _EMAIL.match(value) is not None


def is_domain_name(value: str) -> bool:
    labels = value.split(".")
    return len(value) <= 253 and len(labels) >= 2 and all(_DOMAIN_LABEL.match(x) for x in labels)
