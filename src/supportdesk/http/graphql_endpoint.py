"""GET and POST /graphql (docs/http-and-limits.md, the GraphQL-over-HTTP specification).

The order of checks: the method and what the client accepts; authentication and the rate
limits; the content type and the body's size; then the document, its limits, execution,
and the answer's size. Every method reaches this endpoint, so that each gets a JSON answer
(405) of ours.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import orjson
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from supportdesk.auth.authenticate import KeyNoLongerActive
from supportdesk.auth.principal import Principal
from supportdesk.auth.server_key import CURSOR_KEY_PURPOSE, ServerKey
from supportdesk.config import Settings
from supportdesk.db.deadline import DeadlinePassed, statements_within
from supportdesk.domain.clock import now
from supportdesk.domain.pagination import Cursors
from supportdesk.graphql.compiled import CompiledReads, Plan
from supportdesk.graphql.context import Context
from supportdesk.graphql.documents import (
    DocumentRunner,
    Operation,
    Prepared,
    RequestError,
    subscriptions_elsewhere,
)
from supportdesk.http.access_log import access_record
from supportdesk.http.admission import Admission, Bearer, Remembered
from supportdesk.http.rate_limit import RateLimiter, Verdict
from supportdesk.http.requests import (
    GRAPHQL_RESPONSE,
    JSON,
    GraphQLRequest,
    HttpProblem,
    negotiate,
    read_get,
    read_post,
)

T = TypeVar("T")

# Errors the GraphQL-over-HTTP spec answers with 200 under application/json (and 400 under
# application/graphql-response+json): the request was well formed, the document was not.
_SPEC_REQUEST_ERRORS = frozenset(
    {"GRAPHQL_PARSE_FAILED", "GRAPHQL_VALIDATION_FAILED", "BAD_USER_INPUT"}
)


@dataclass(slots=True)
class Reply:
    """How this request will be answered: the negotiated media type, headers so far."""

    media_type: str = JSON
    headers: dict[str, str] = field(default_factory=dict)

    def raw(self, body: bytes) -> Response:
        """A 200 whose JSON body is already made."""
        return Response(body, headers=self.headers, media_type=f"{self.media_type}; charset=utf-8")

    def __call__(
        self, body: Any, status: int = 200, headers: dict[str, str] | None = None
    ) -> Response:
        return Response(
            orjson.dumps(body),
            status_code=status,
            headers={**self.headers, **(headers or {})},
            media_type=f"{self.media_type}; charset=utf-8",
        )


def _asks_whether_compiled(payload: GraphQLRequest) -> bool:
    """A client asks with `"extensions": {"compiled": true}` in its request (or false, to
    have the executor answer)."""
    return bool(payload.extensions and isinstance(payload.extensions.get("compiled"), bool))


def _refuses_compiled(payload: GraphQLRequest) -> bool:
    return bool(payload.extensions and payload.extensions.get("compiled") is False)


@dataclass(slots=True)
class _Caller:
    """Who asks: the request's key, its principal and the token of its rate limit. A key
    remembered by this process is not `checked` (known to be active) until a compiled
    statement finds it so or it is looked up."""

    bearer: Bearer
    principal: Principal
    verdict: Verdict
    checked: bool
    remembered: Remembered | None = None


@dataclass(slots=True)  # not frozen: a frozen dataclass sets each field through object
class _Prepared:
    prepared: Prepared
    operation: Operation
    cost: int
    context: Context
    plan: Plan | None


class GraphQLEndpoint:
    def __init__(
        self,
        executor: DocumentRunner,
        settings: Settings,
        limiter: RateLimiter,
        server_key: ServerKey,
    ) -> None:
        self.executor = executor
        self.compiled = CompiledReads(executor.schema) if settings.compiled_reads else None
        self.settings = settings
        self.admission = Admission(settings, limiter)
        self.server_key = server_key
        self._cursor_key: bytes | None = None

    async def cursor_key(self) -> bytes:
        if self._cursor_key is None:
            self._cursor_key = await self.server_key.derived(CURSOR_KEY_PURPOSE)
        return self._cursor_key

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        response = await self.handle(Request(scope, receive))
        await response(scope, receive, send)

    async def handle(self, request: Request) -> Response:
        """Straight through: who asks (once), the request read and prepared, then the
        answer, compiled when its plan answers and the executor's otherwise."""
        reply = Reply()
        try:
            reply.media_type = negotiate(request.headers.get("accept"))
            if request.method not in ("GET", "POST"):
                raise HttpProblem(
                    405,
                    "METHOD_NOT_ALLOWED",
                    "Use POST (or GET for queries).",
                    {"Allow": "GET, POST"},
                )
            caller = await self._caller(request, reply)
            try:
                payload = await (
                    read_get(request)
                    if request.method == "GET"
                    else read_post(request, self.settings.max_body_bytes)
                )
                ready = await self._prepared(request, payload, caller.principal)
            except (HttpProblem, RequestError):
                await self._checked(request, caller, reply)  # a revoked key's 401 comes first
                raise
            if ready.plan is not None:
                answer = await self._compiled(request, ready, payload, caller, reply)
                if answer is not None:
                    return answer
            await self._checked(request, caller, reply)
            ready.context.principal = caller.principal
            return await self._executed(ready, payload, reply)
        except HttpProblem as problem:
            return reply(problem.body, problem.status, problem.headers)
        except RequestError as error:
            if error.extensions and "cost" in error.extensions:
                access_record(request.scope).cost = error.extensions["cost"]["requested"]
            spec_status = 400 if reply.media_type == GRAPHQL_RESPONSE else 200
            status = spec_status if error.code in _SPEC_REQUEST_ERRORS else error.status
            return reply(error.body, status)

    async def _caller(self, request: Request, reply: Reply) -> _Caller:
        """Who asks, and the token of its rate limit, taken once. A key this process has
        authenticated before is taken at its word for now: its compiled statements check
        that it is still active, or it is looked up (`_checked`) before anything else
        answers. Any other key is looked up here."""
        bearer = Bearer.of(request)
        remembered = await self.admission.admit_known(bearer) if self.compiled else None
        if remembered is not None:
            caller = _Caller(bearer, remembered.principal, remembered.verdict, False, remembered)
            if not remembered.verdict.allowed:  # 429, unless a lookup answers 401 first
                await self._checked(request, caller, reply)
            return caller
        principal = await self.admission.authenticate(request, bearer)
        verdict = await self.admission.spend(principal)
        reply.headers.update(self.admission.allowed(request, principal, verdict))
        return _Caller(bearer, principal, verdict, True)

    async def _checked(self, request: Request, caller: _Caller, reply: Reply) -> None:
        """The caller's key known to be active from here on: looked up unless it is
        already (401 when it is not, then 429 when its token was refused)."""
        if caller.checked:
            return
        caller.principal = await self.admission.authenticate(request, caller.bearer)
        reply.headers.update(self.admission.allowed(request, caller.principal, caller.verdict))
        caller.checked = True

    async def _compiled(
        self,
        request: Request,
        ready: _Prepared,
        payload: GraphQLRequest,
        caller: _Caller,
        reply: Reply,
    ) -> Response | None:
        """The compiled answer, or None: the executor answers."""
        try:
            # A time-out is answered from here (503): running the statement again would
            # take as long, and it could not tell whether the key is still active either.
            answer = await self._in_time(self._compiled_answer(ready, payload))
        except KeyNoLongerActive:
            # The one place a key found revoked or expired since it was authenticated is
            # handled: it is forgotten and looked up again (`_checked`), which answers 401
            # with the reason.
            self.admission.forget(caller.bearer)
            caller.checked = False
            return None
        except HttpProblem:
            reply.headers.update(caller.verdict.headers())
            raise
        if answer is None:
            return None
        if not caller.checked and caller.remembered is not None:
            # Its statements found the key active.
            reply.headers.update(self.admission.admitted(request, caller.remembered))
            caller.checked = True
        access_record(request.scope).compiled = True
        return self._answered(reply, answer, ready.cost)

    async def _prepared(
        self, request: Request, payload: GraphQLRequest, principal: Principal
    ) -> _Prepared:
        """The request's document, operation, cost and context, and the plan that answers
        it compiled (None when the executor must answer); raises RequestError."""
        record = access_record(request.scope)
        prepared = self.executor.prepare(payload.query)
        operation = prepared.operation(payload.operation_name)
        record.operation = operation.name[:100] if operation.name else None
        record.operation_type = operation.node.operation.value
        if operation.is_subscription:
            raise subscriptions_elsewhere()
        mutation = operation.is_mutation
        if request.method == "GET" and mutation:
            raise HttpProblem(
                405,
                "METHOD_NOT_ALLOWED",
                "Mutations must be sent with POST.",
                {"Allow": "POST"},
            )
        cost = record.cost = self.executor.cost(operation, payload.variables)
        if not mutation:
            record.compiled = False
        context = Context(
            db=request.app.state.db,
            principal=principal,
            request_id=request.state.request_id,
            now=now(),
            cursors=Cursors(await self.cursor_key(), principal.workspace_id),
            client_ip=request.client.host if request.client else None,
            webhooks=request.app.state.webhooks,
            base_url=self.settings.base_url or str(request.base_url).rstrip("/"),
            attachment_max_bytes=self.settings.attachment_max_bytes,
        )
        plan = (
            self.compiled.plan(prepared.answer_plans, prepared.fragments, operation.node, principal)
            if self.compiled is not None and not mutation and not _refuses_compiled(payload)
            else None
        )
        if plan is not None:
            self.executor.check_variables(payload.variables, cost)
        return _Prepared(prepared, operation, cost, context, plan)

    async def _executed(self, ready: _Prepared, payload: GraphQLRequest, reply: Reply) -> Response:
        """The executor's answer."""
        body = await self._in_time(
            self.executor.run(
                ready.prepared, ready.operation, payload.variables, ready.context, ready.cost
            )
        )
        if not ready.operation.is_mutation and _asks_whether_compiled(payload):
            body["extensions"]["compiled"] = False
        return self._answered(reply, orjson.dumps(body), ready.cost)

    def _answered(self, reply: Reply, answer: bytes, cost: int) -> Response:
        """Every answer that ran, compiled or the executor's, leaves here: as it is, or, over
        the size limit, as one error and no data (400, as every limit)."""
        try:
            return reply.raw(self.executor.check_answer(answer, cost))
        except RequestError as refused:
            return reply(refused.body, refused.status)

    async def _compiled_answer(self, ready: _Prepared, payload: GraphQLRequest) -> bytes | None:
        """The whole body of a compiled answer, or None when the executor must answer."""
        assert self.compiled is not None and ready.plan is not None
        data = await self.compiled.answer(ready.plan, payload.variables, ready.context)
        if data is None:
            return None
        extensions = self.executor.cost_extensions(ready.cost)
        if _asks_whether_compiled(payload):
            extensions["compiled"] = True
        return b'{"data":' + data + b',"extensions":' + orjson.dumps(extensions) + b"}"

    async def _in_time(self, work: Awaitable[T]) -> T:
        seconds = self.settings.request_timeout_seconds
        try:
            with statements_within(seconds):
                async with asyncio.timeout(seconds):
                    return await work
        except (TimeoutError, DeadlinePassed):
            raise HttpProblem(
                503,
                "TIMEOUT",
                f"The request ran over the time-out of {seconds:g} s; ask for less at once.",
                timeoutSeconds=seconds,
            ) from None
