"""What a call may raise (docs/api.md).

SupportdeskError
├── ApiError                a top-level GraphQL error, or an HTTP refusal
│   ├── Unauthenticated     401: a missing, malformed, unknown, revoked or expired key
│   ├── Forbidden           the key lacks a scope; `required_scopes` names those that would do
│   ├── NotFound            a single-object query found nothing (`issue(id)`, `contact(id)`, …)
│   ├── RateLimited         429 after the retries allowed; `retry_after` in seconds
│   ├── InvalidRequest      the request itself was refused (BAD_USER_INPUT, limits, parsing)
│   └── ServerError         INTERNAL_SERVER_ERROR, TIMEOUT, or an answer that is not GraphQL
└── MutationError           a mutation's payload said `error`: `code` and per-field codes
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


class SupportdeskError(Exception):
    """Every refusal of the service."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class ApiError(SupportdeskError):
    """A top-level GraphQL error (or an HTTP status that carries one).

    `errors` holds every error of the answer, `data` what it answered besides; `status` is
    the HTTP status and `request_id` the answer's `X-Request-Id` (quote it to the operator).
    """

    def __init__(
        self,
        code: str,
        message: str,
        *,
        status: int = 200,
        request_id: str | None = None,
        errors: Sequence[Mapping[str, Any]] = (),
        data: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(code, message)
        self.status = status
        self.request_id = request_id
        self.errors = list(errors)
        self.data = data
        first = self.errors[0] if self.errors else {}
        self.extensions: Mapping[str, Any] = first.get("extensions") or {}
        self.path: list[str | int] = list(first.get("path") or [])


class Unauthenticated(ApiError):
    @property
    def reason(self) -> str | None:
        """`missing`, `malformed`, `invalid`, `revoked` or `expired`."""
        reason = self.extensions.get("reason")
        return str(reason) if reason is not None else None


class Forbidden(ApiError):
    @property
    def required_scopes(self) -> list[str]:
        """The scopes any one of which would allow the field."""
        return [str(scope) for scope in self.extensions.get("requiredScopes") or []]


class NotFound(ApiError):
    """A single-object query (`issue`, `issueByNumber`, `contact`, `contactByEmail`,
    `account`, `article`, `node`) found nothing: the service answers null with a
    NOT_FOUND error at its path, and the client raises this instead of returning None."""


class RateLimited(ApiError):
    def __init__(self, code: str, message: str, *, retry_after: float | None, **rest: Any) -> None:
        super().__init__(code, message, **rest)
        self.retry_after = retry_after
        """Seconds until the key's rate limit refills (the answer's `Retry-After`)."""


class InvalidRequest(ApiError):
    """BAD_USER_INPUT, QUERY_TOO_COMPLEX, GRAPHQL_PARSE_FAILED, GRAPHQL_VALIDATION_FAILED."""


class ServerError(ApiError):
    """INTERNAL_SERVER_ERROR (quote `request_id`), TIMEOUT, or an answer that is not GraphQL."""


class MutationError(SupportdeskError):
    """A mutation's payload reported `error`: nothing changed.

    `fields` maps each refused input field (for `updateIssues`, each refused issue id) to
    its code, e.g. {"subject": "REQUIRED", "requesterEmail": "INVALID"}.
    """

    def __init__(self, code: str, message: str, fields: Mapping[str, str]) -> None:
        super().__init__(code, message)
        self.fields = dict(fields)

    def __str__(self) -> str:
        refused = ", ".join(f"{field} {code}" for field, code in self.fields.items())
        return f"{self.code}: {self.message}" + (f" ({refused})" if refused else "")


_BY_CODE: dict[str, type[ApiError]] = {
    "UNAUTHENTICATED": Unauthenticated,
    "FORBIDDEN": Forbidden,
    "NOT_FOUND": NotFound,
    "BAD_USER_INPUT": InvalidRequest,
    "QUERY_TOO_COMPLEX": InvalidRequest,
    "GRAPHQL_PARSE_FAILED": InvalidRequest,
    "GRAPHQL_VALIDATION_FAILED": InvalidRequest,
    # Refused by HTTP before GraphQL: a body over the size limit, one that is not a query.
    "PAYLOAD_TOO_LARGE": InvalidRequest,
    "BAD_REQUEST": InvalidRequest,
    "INTERNAL_SERVER_ERROR": ServerError,
    "TIMEOUT": ServerError,
}


def error_class(code: str) -> type[ApiError]:
    """The exception for a top-level error code; ApiError for a code this client does not
    know (a newer server)."""
    return _BY_CODE.get(code, ApiError)
