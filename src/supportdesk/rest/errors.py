"""Errors as REST clients see them (docs/api.md, docs/rest-v1.md): an HTTP status that says
the kind of failure, and `{"error": {"code", "message", "fields": [{"field", "code"}]}}`
with the GraphQL API's codes. Extra members (`reason`, `required_scopes`, `retry_after`,
…) are the GraphQL error's extensions in snake_case."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import orjson
from starlette.responses import Response

from supportdesk.domain.errors import DomainError, ErrorCode
from supportdesk.http.errors import UNAVAILABLE_MESSAGE, UNAVAILABLE_RETRY_AFTER
from supportdesk.http.requests import HttpProblem

JSON = "application/json"
_WORD_START = re.compile(r"(?<!^)(?=[A-Z])")


def json_response(
    body: Any, status: int = 200, headers: Mapping[str, str] | None = None
) -> Response:
    return Response(
        orjson.dumps(body), status_code=status, headers=dict(headers or {}), media_type=JSON
    )


class RestError(Exception):
    """A request refused, with its status, code and what the client needs to mend it."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        fields: list[tuple[str, str]] | None = None,
        headers: Mapping[str, str] | None = None,
        **details: Any,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.fields = fields or []
        self.headers = dict(headers or {})
        self.details = details

    def body(self) -> dict[str, Any]:
        fields = [{"field": name, "code": code} for name, code in self.fields]
        error = {"code": self.code, "message": self.message, "fields": fields, **self.details}
        return {"error": error}

    def response(self, headers: Mapping[str, str] | None = None) -> Response:
        return json_response(self.body(), self.status, {**(headers or {}), **self.headers})


def _snake(name: str) -> str:
    return _WORD_START.sub("_", name).lower()


def of_problem(problem: HttpProblem) -> RestError:
    """A refusal of the HTTP layer (401, 413, 415, 429, 400), with the same code and reason
    as GraphQL gives."""
    details = {_snake(name): value for name, value in problem.extensions.items()}
    return RestError(
        problem.status, problem.code, problem.message, headers=problem.headers, **details
    )


# Codes with a status of their own; every other domain failure is 422.
_STATUS_OF_CODE = {
    ErrorCode.NOT_FOUND: 404,
    # An attachment's upload (docs/attachments.md): the body was wrong, the URL is no more,
    # or the bytes came already.
    ErrorCode.SIZE_MISMATCH: 400,
    ErrorCode.UPLOAD_EXPIRED: 410,
    ErrorCode.ALREADY_UPLOADED: 409,
    ErrorCode.FORBIDDEN: 403,
}


def of_domain(error: DomainError, rest_names: Mapping[str, str]) -> RestError:
    """A rule of the domain said no: 404 for NOT_FOUND (an upload's failures have their own,
    `_STATUS_OF_CODE`), 422 for every other code; field
    names are the REST ones (`rest_names` maps the domain's names to them)."""
    if error.code in _STATUS_OF_CODE:
        return RestError(_STATUS_OF_CODE[error.code], error.code, error.message)
    fields = [(rest_names.get(f.field, f.field), str(f.code)) for f in error.fields]
    if error.code is not ErrorCode.VALIDATION_FAILED:
        return RestError(422, error.code, error.message, fields=fields)
    notes = [_renamed(note, field, rest_names.get(field, field)) for field, note in error.notes]
    return validation_failed(fields, notes)


def _renamed(note: str, field: str, rest_name: str) -> str:
    """A note of the domain's that starts with its field's name, with the REST one."""
    return rest_name + note[len(field) :] if note.startswith(f"{field} ") else note


def validation_failed(fields: list[tuple[str, str]], notes: Sequence[str] = ()) -> RestError:
    names = ", ".join(sorted({name for name, _ in fields}))
    message = " ".join([f"Invalid input: {names}.", *notes])
    return RestError(422, ErrorCode.VALIDATION_FAILED, message, fields=fields)


def bad_request(message: str) -> RestError:
    return RestError(400, "BAD_REQUEST", message)


def not_found(message: str) -> RestError:
    return RestError(404, ErrorCode.NOT_FOUND, message)


def forbidden(required: frozenset[str], legacy: bool) -> RestError:
    if legacy:
        message = (
            "Legacy svc_live_ keys may only create issues (POST /v1/issues);"
            " use a svc_mk_ key with scopes."
        )
    else:
        message = (
            f"This key lacks the scope for this operation; any of: {', '.join(sorted(required))}."
        )
    return RestError(403, "FORBIDDEN", message, required_scopes=sorted(required))


def method_not_allowed(allowed: str) -> RestError:
    return RestError(405, "METHOD_NOT_ALLOWED", f"Use {allowed} here.", headers={"Allow": allowed})


def internal(request_id: str | None) -> RestError:
    """The unexpected, masked: the request id lets an operator find it in the log."""
    return RestError(500, "INTERNAL_SERVER_ERROR", "Internal server error.", request_id=request_id)


def unavailable(request_id: str | None) -> RestError:
    """The database out of reach: 503, which clients retry after Retry-After."""
    return RestError(
        503,
        "INTERNAL_SERVER_ERROR",
        UNAVAILABLE_MESSAGE,
        headers={"Retry-After": UNAVAILABLE_RETRY_AFTER},
        request_id=request_id,
    )
