"""Domain errors: a code from the contract, a message for people, per-field details."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class ErrorCode(StrEnum):
    VALIDATION_FAILED = "VALIDATION_FAILED"
    NOT_FOUND = "NOT_FOUND"
    ALREADY_EXISTS = "ALREADY_EXISTS"
    INVALID_STATUS_TRANSITION = "INVALID_STATUS_TRANSITION"
    ISSUE_CLOSED = "ISSUE_CLOSED"
    ISSUE_MERGED = "ISSUE_MERGED"
    SCOPE_ESCALATION = "SCOPE_ESCALATION"
    UNKNOWN_SCOPE = "UNKNOWN_SCOPE"
    IDEMPOTENCY_KEY_MISMATCH = "IDEMPOTENCY_KEY_MISMATCH"
    LIMIT_REACHED = "LIMIT_REACHED"
    NOT_CONFIGURED = "NOT_CONFIGURED"
    # The upload of an attachment's bytes (docs/attachments.md).
    SIZE_MISMATCH = "SIZE_MISMATCH"
    UPLOAD_EXPIRED = "UPLOAD_EXPIRED"
    ALREADY_UPLOADED = "ALREADY_UPLOADED"
    # Bytes sent with a key other than the one that asked for the upload.
    FORBIDDEN = "FORBIDDEN"


class FieldCode(StrEnum):
    REQUIRED = "REQUIRED"
    INVALID = "INVALID"
    TOO_LONG = "TOO_LONG"
    UNSAFE_URL = "UNSAFE_URL"
    UNKNOWN = "UNKNOWN"
    TOO_LARGE = "TOO_LARGE"
    # attachmentIds: more than a message takes, one another message has, one not uploaded.
    TOO_MANY = "TOO_MANY"
    ALREADY_ATTACHED = "ALREADY_ATTACHED"
    NOT_UPLOADED = "NOT_UPLOADED"


@dataclass(frozen=True, slots=True)
class FieldError:
    # A field of the input; in a bulk change, one of the ids, with the code of what stops it.
    field: str
    code: FieldCode | ErrorCode


@dataclass(slots=True)
class DomainError(Exception):
    """A rule said no. Mutations report it in their payload; queries as a GraphQL error."""

    code: ErrorCode
    message: str
    fields: list[FieldError] = field(default_factory=list)
    # What a refused field takes, by field, as the message says it: for adapters whose
    # field names differ (REST), to say it again with theirs.
    notes: tuple[tuple[str, str], ...] = ()

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"


class InvalidArgument(ValueError):
    """An argument outside what the operation accepts (bad page size, bad cursor);
    `extensions` tell the client more (e.g. `oldestSequence`)."""

    def __init__(self, message: str, **extensions: object) -> None:
        super().__init__(message)
        self.extensions = extensions


def not_found(what: str) -> DomainError:
    return DomainError(ErrorCode.NOT_FOUND, f"{what} not found.")
