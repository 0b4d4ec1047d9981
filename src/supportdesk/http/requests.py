"""Reading a GraphQL-over-HTTP request: the media type to answer in, and the query,
variables, operation name and extensions out of a GET's query string or a POST's body.
The JSON body's checks (media type, size, syntax) serve the REST interface too."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson
from starlette.requests import Request

GRAPHQL_RESPONSE = "application/graphql-response+json"
JSON = "application/json"
_ANY_JSON = (JSON, "application/*", "*/*")


class HttpProblem(Exception):
    """A request refused before or instead of execution, with its status and code."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        headers: dict[str, str] | None = None,
        **extensions: Any,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.extensions = extensions
        self.body = {"errors": [{"message": message, "extensions": {"code": code, **extensions}}]}
        self.headers = headers or {}


@dataclass(frozen=True, slots=True)
class GraphQLRequest:
    query: str
    variables: dict[str, Any] | None
    operation_name: str | None
    extensions: dict[str, Any] | None = None


def _media_range(part: str) -> tuple[str, dict[str, str]]:
    kind, *parameters = part.split(";")
    values = {}
    for parameter in parameters:
        name, _, value = parameter.partition("=")
        values[name.strip().lower()] = value.strip().strip('"').lower()
    return kind.strip().lower(), values


def _quality(parameters: dict[str, str]) -> float:
    try:
        return float(parameters.get("q", "1"))
    except ValueError:
        return 0.0


def negotiate(accept: str | None) -> str:
    """The media type to answer in: the acceptable one the client weights highest,
    `application/graphql-response+json` on a tie, `application/json` without a header."""
    if not accept or not accept.strip():
        return JSON
    best: tuple[float, int, str] | None = None
    for part in accept.split(","):
        kind, parameters = _media_range(part)
        quality = _quality(parameters)
        if quality <= 0:
            continue
        if kind == GRAPHQL_RESPONSE:
            candidate = (quality, 2, GRAPHQL_RESPONSE)
        elif kind in _ANY_JSON:
            candidate = (quality, 1 if kind == JSON else 0, JSON)
        else:
            continue
        best = max(best, candidate) if best else candidate
    if best is None:
        raise HttpProblem(406, "NOT_ACCEPTABLE", f"Accept {JSON} or {GRAPHQL_RESPONSE}.")
    return best[2]


async def read_post(request: Request, max_body_bytes: int) -> GraphQLRequest:
    data = await read_json(request, max_body_bytes)
    if isinstance(data, list):
        raise HttpProblem(
            400, "BAD_REQUEST", "Batched requests are not supported; send one object."
        )
    if not isinstance(data, dict):
        raise HttpProblem(400, "BAD_REQUEST", "The body must be a JSON object with `query`.")
    return graphql_request(
        data.get("query"), data.get("variables"), data.get("operationName"), data.get("extensions")
    )


async def read_json(request: Request, max_body_bytes: int) -> Any:
    """The JSON body, refused unread past the size limit when it declares its length, and as
    soon as it grows past it when it does not."""
    kind, parameters = _media_range(request.headers.get("content-type", ""))
    charset = parameters.get("charset", "utf-8")
    if kind != JSON or charset not in ("utf-8", "utf8"):
        raise HttpProblem(
            415, "UNSUPPORTED_MEDIA_TYPE", "Send the request as application/json (UTF-8)."
        )
    declared = request.headers.get("content-length", "")
    if declared.isascii() and declared.isdigit() and int(declared) > max_body_bytes:
        raise _too_large(max_body_bytes)
    body = bytearray()
    async for chunk in request.stream():
        body.extend(chunk)
        if len(body) > max_body_bytes:
            raise _too_large(max_body_bytes)
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError:
        raise HttpProblem(400, "BAD_REQUEST", "The body is not valid JSON.") from None


async def read_get(request: Request) -> GraphQLRequest:
    params = request.query_params
    return graphql_request(
        params.get("query"),
        _json_parameter(params.get("variables"), "variables"),
        params.get("operationName") or None,
        _json_parameter(params.get("extensions"), "extensions"),
    )


def _json_parameter(text: str | None, name: str) -> Any:
    if not text:
        return None
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        raise HttpProblem(400, "BAD_REQUEST", f"`{name}` is not valid JSON.") from None


def _too_large(max_body_bytes: int) -> HttpProblem:
    return HttpProblem(
        413,
        "PAYLOAD_TOO_LARGE",
        f"The body is over the limit of {max_body_bytes} bytes.",
        maxBytes=max_body_bytes,
    )


def graphql_request(
    query: Any, variables: Any, operation_name: Any, extensions: Any
) -> GraphQLRequest:
    if not isinstance(query, str) or not query.strip():
        raise HttpProblem(400, "BAD_REQUEST", "The request needs a `query` string.")
    if variables is not None and not isinstance(variables, dict):
        raise HttpProblem(400, "BAD_REQUEST", "`variables` must be a JSON object.")
    if operation_name is not None and not isinstance(operation_name, str):
        raise HttpProblem(400, "BAD_REQUEST", "`operationName` must be a string.")
    if extensions is not None and not isinstance(extensions, dict):
        raise HttpProblem(400, "BAD_REQUEST", "`extensions` must be a JSON object.")
    return GraphQLRequest(query, variables, operation_name or None, extensions)
