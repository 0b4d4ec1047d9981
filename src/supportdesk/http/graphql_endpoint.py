"""POST/GET /graphql over HTTP (CONTRACT section 7, GraphQL-over-HTTP).

The order of checks: method, content type and size, authentication, then the document.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import Response

from supportdesk.auth.authenticate import (
    AuthenticationFailed,
    authenticate,
    needs_last_used_write,
    record_last_used,
)
from supportdesk.auth.principal import Principal
from supportdesk.domain.clock import now
from supportdesk.graphql.context import Context
from supportdesk.graphql.executor import Executor, RequestError, is_mutation

GRAPHQL_RESPONSE = "application/graphql-response+json"
JSON = "application/json"


class HttpProblem(Exception):
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
        self.body = {"errors": [{"message": message, "extensions": {"code": code, **extensions}}]}
        self.headers = headers or {}


@dataclass(frozen=True, slots=True)
class GraphQLRequest:
    query: str
    variables: dict[str, Any] | None
    operation_name: str | None


def negotiate(accept: str | None) -> str:
    """`application/graphql-response+json` when the client asks for it; JSON otherwise."""
    if not accept:
        return JSON
    kinds = [part.split(";")[0].strip().lower() for part in accept.split(",")]
    for kind in kinds:
        if kind == GRAPHQL_RESPONSE:
            return GRAPHQL_RESPONSE
        if kind in (JSON, "application/*", "*/*"):
            return JSON
    raise HttpProblem(406, "NOT_ACCEPTABLE", f"Accept {JSON} or {GRAPHQL_RESPONSE}.")


def respond(
    body: Any, status: int, media_type: str, headers: dict[str, str] | None = None
) -> Response:
    return Response(
        orjson.dumps(body),
        status_code=status,
        headers=headers,
        media_type=f"{media_type}; charset=utf-8",
    )


class GraphQLEndpoint:
    def __init__(self, executor: Executor, max_body_bytes: int) -> None:
        self.executor = executor
        self.max_body_bytes = max_body_bytes
        self._background: set[asyncio.Task[None]] = set()
        self._last_used_scheduled: dict[str, Any] = {}

    async def handle(self, request: Request) -> Response:
        media_type = JSON
        try:
            media_type = negotiate(request.headers.get("accept"))
            if request.method not in ("GET", "POST"):
                raise HttpProblem(
                    405,
                    "METHOD_NOT_ALLOWED",
                    "Use POST (or GET for queries).",
                    {"Allow": "GET, POST"},
                )
            payload = await (
                self._read_get(request) if request.method == "GET" else self._read_post(request)
            )
            principal = await self._authenticate(request)
            return await self._execute(request, payload, principal, media_type)
        except HttpProblem as problem:
            return respond(problem.body, problem.status, media_type, problem.headers)

    async def _authenticate(self, request: Request) -> Principal:
        db = request.app.state.db
        moment = now()
        try:
            principal, last_used_at = await authenticate(
                db, request.headers.get("authorization"), moment
            )
        except AuthenticationFailed as failure:
            raise HttpProblem(
                401,
                "UNAUTHENTICATED",
                str(failure),
                {"WWW-Authenticate": "Bearer"},
                reason=failure.reason,
            ) from None
        if needs_last_used_write(last_used_at, moment) and needs_last_used_write(
            self._last_used_scheduled.get(principal.key_id), moment
        ):
            self._last_used_scheduled[principal.key_id] = moment
            task = asyncio.create_task(record_last_used(db, principal, moment))
            self._background.add(task)
            task.add_done_callback(self._background.discard)
        request.state.principal = principal
        return principal

    async def _read_post(self, request: Request) -> GraphQLRequest:
        content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if content_type != JSON:
            raise HttpProblem(
                415, "UNSUPPORTED_MEDIA_TYPE", "Send the request as application/json."
            )
        declared = request.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_body_bytes:
            raise self._too_large()
        body = bytearray()
        async for chunk in request.stream():
            body.extend(chunk)
            if len(body) > self.max_body_bytes:
                raise self._too_large()
        try:
            data = orjson.loads(body)
        except orjson.JSONDecodeError:
            raise HttpProblem(400, "BAD_REQUEST", "The body is not valid JSON.") from None
        if isinstance(data, list):
            raise HttpProblem(
                400, "BAD_REQUEST", "Batched requests are not supported; send one object."
            )
        if not isinstance(data, dict):
            raise HttpProblem(400, "BAD_REQUEST", "The body must be a JSON object with `query`.")
        return _graphql_request(data.get("query"), data.get("variables"), data.get("operationName"))

    async def _read_get(self, request: Request) -> GraphQLRequest:
        params = request.query_params
        variables: Any = params.get("variables")
        if variables:
            try:
                variables = orjson.loads(variables)
            except orjson.JSONDecodeError:
                raise HttpProblem(400, "BAD_REQUEST", "`variables` is not valid JSON.") from None
        return _graphql_request(params.get("query"), variables or None, params.get("operationName"))

    def _too_large(self) -> HttpProblem:
        return HttpProblem(
            413, "PAYLOAD_TOO_LARGE", f"The body is over {self.max_body_bytes} bytes."
        )

    async def _execute(
        self, request: Request, payload: GraphQLRequest, principal: Principal, media_type: str
    ) -> Response:
        request_error_status = 400 if media_type == GRAPHQL_RESPONSE else 200
        context = Context(
            db=request.app.state.db,
            principal=principal,
            request_id=request.state.request_id,
            now=now(),
            client_ip=request.client.host if request.client else None,
        )
        try:
            prepared = self.executor.prepare(payload.query)
            operation = prepared.operation(payload.operation_name)
            if request.method == "GET" and is_mutation(operation):
                raise HttpProblem(
                    405,
                    "METHOD_NOT_ALLOWED",
                    "Mutations must be sent with POST.",
                    {"Allow": "POST"},
                )
            body = await self.executor.run(prepared, operation, payload.variables, context)
        except RequestError as error:
            status = (
                error.status if error.code not in _SPEC_REQUEST_ERRORS else request_error_status
            )
            return respond({"errors": error.errors}, status, media_type)
        return respond(body, 200, media_type)


# Errors the GraphQL-over-HTTP spec answers with 200 under application/json.
_SPEC_REQUEST_ERRORS = frozenset(
    {"GRAPHQL_PARSE_FAILED", "GRAPHQL_VALIDATION_FAILED", "BAD_USER_INPUT"}
)


def _graphql_request(query: Any, variables: Any, operation_name: Any) -> GraphQLRequest:
    if not isinstance(query, str) or not query.strip():
        raise HttpProblem(400, "BAD_REQUEST", "The request needs a `query` string.")
    if variables is not None and not isinstance(variables, dict):
        raise HttpProblem(400, "BAD_REQUEST", "`variables` must be a JSON object.")
    if operation_name is not None and not isinstance(operation_name, str):
        raise HttpProblem(400, "BAD_REQUEST", "`operationName` must be a string.")
    return GraphQLRequest(query, variables, operation_name)
