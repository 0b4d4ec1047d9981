"""Reading the service's answers: the data of a call, or the exception it means."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx

from .errors import ApiError, MutationError, RateLimited, ServerError, error_class


def read_data(response: httpx.Response) -> dict[str, Any]:
    """The `data` of an answer with no errors; raises what the answer means otherwise."""
    body = _json_body(response)
    errors = body.get("errors") if body is not None else None
    if response.status_code == 429:
        raise _rate_limited(response, errors or [])
    if errors:
        raise _api_error(response, errors, body.get("data") if body else None)
    if body is None or not response.is_success or not isinstance(body.get("data"), dict):
        raise ServerError(
            "INVALID_RESPONSE",
            f"HTTP {response.status_code} without a GraphQL answer",
            status=response.status_code,
            request_id=response.headers.get("x-request-id"),
        )
    data: dict[str, Any] = body["data"]
    _raise_payload_error(data)
    return data


def retry_after(response: httpx.Response) -> float | None:
    """`Retry-After` in seconds; None when absent or an HTTP date (this service sends
    seconds)."""
    value = response.headers.get("retry-after", "")
    try:
        return max(0.0, float(value))
    except ValueError:
        return None


def _json_body(response: httpx.Response) -> dict[str, Any] | None:
    try:
        body = response.json()
    except ValueError:
        return None
    return body if isinstance(body, dict) else None


def _context(response: httpx.Response) -> dict[str, Any]:
    return {"status": response.status_code, "request_id": response.headers.get("x-request-id")}


def _api_error(
    response: httpx.Response, errors: list[Mapping[str, Any]], data: Mapping[str, Any] | None
) -> ApiError:
    first = errors[0]
    code = str((first.get("extensions") or {}).get("code") or "UNKNOWN")
    kind = error_class(code)
    return kind(code, str(first.get("message", "")), errors=errors, data=data, **_context(response))


def _rate_limited(response: httpx.Response, errors: list[Mapping[str, Any]]) -> RateLimited:
    message = str(errors[0].get("message", "")) if errors else "rate limit spent"
    return RateLimited(
        "RATE_LIMITED",
        message,
        retry_after=retry_after(response),
        errors=errors,
        **_context(response),
    )


def _raise_payload_error(data: Mapping[str, Any]) -> None:
    """Every mutation payload has `error`; a query's root fields never do."""
    for payload in data.values():
        error = payload.get("error") if isinstance(payload, Mapping) else None
        if error:
            fields = {item["field"]: item["code"] for item in error.get("fields") or []}
            raise MutationError(error["code"], error["message"], fields)
