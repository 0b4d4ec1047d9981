"""POST /graphql/stream: subscriptions over the graphql-sse protocol, distinct connections
mode (one subscription per request). The request is a GraphQL-over-HTTP POST with
`Accept: text/event-stream` and the same Bearer key as the rest of the API; the answer is
`text/event-stream`: each payload as an `event: next` message, then `event: complete`.

Who asks and what they send are checked first, answered in the API's JSON shape (401,
405, 406, 413, 415, 429, 400 for a body that is not JSON). Whatever the document is,
the stream is accepted then: the protocol wants a refused document (parse, validation,
limits, not a subscription, the subscription's own refusals) told as a `next` message
with errors, then `complete`."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator
from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send
from strawberry.types.execution import ExecutionResult
from strawberry.utils.aio import aclosing

from supportdesk.config import Settings
from supportdesk.graphql.streams import Caller, SubscriptionRunner
from supportdesk.http.access_log import access_record
from supportdesk.http.admission import Admission
from supportdesk.http.requests import JSON, HttpProblem, read_post
from supportdesk.http.sse_stream import ServerSentEvents, disconnected
from supportdesk.live import sse

logger = logging.getLogger("supportdesk.live")

_ACCEPTED = (sse.MEDIA_TYPE, "text/*", "*/*")


def accepts_event_stream(accept: str | None) -> bool:
    if not accept:
        return True
    kinds = {part.split(";")[0].strip().lower() for part in accept.split(",")}
    return not kinds.isdisjoint(_ACCEPTED)


def payload_of(result: ExecutionResult) -> dict[str, Any]:
    payload: dict[str, Any] = {"data": result.data}
    if result.errors:
        payload["errors"] = [error.formatted for error in result.errors]
    if result.extensions:
        payload["extensions"] = result.extensions
    return payload


class GraphQLStreamEndpoint:
    def __init__(self, runner: SubscriptionRunner, admission: Admission, settings: Settings):
        self.runner = runner
        self.admission = admission
        self.settings = settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        response = await self.handle(Request(scope, receive))
        await response(scope, receive, send)

    async def handle(self, request: Request) -> Response:
        headers: dict[str, str] = {}
        try:
            if request.method != "POST":
                raise HttpProblem(
                    405, "METHOD_NOT_ALLOWED", "Subscribe with POST.", {"Allow": "POST"}
                )
            if not accepts_event_stream(request.headers.get("accept")):
                raise HttpProblem(406, "NOT_ACCEPTABLE", f"Accept {sse.MEDIA_TYPE}.")
            principal, headers = await self.admission.admit(request)
            payload = await read_post(request, self.settings.max_body_bytes)
        except HttpProblem as problem:
            return Response(
                orjson.dumps(problem.body),
                problem.status,
                {**headers, **problem.headers},
                media_type=f"{JSON}; charset=utf-8",
            )
        access_record(request.scope).operation_type = "subscription"
        client = request.client
        caller = Caller(request.state.request_id, client and client.host, principal)
        results = await self.runner.stream(
            payload.query, payload.variables, caller, operation_name=payload.operation_name
        )
        keep_alive = self.settings.event_stream_keepalive_seconds
        return GraphQLEventStream(results, keep_alive, headers)


class GraphQLEventStream(ServerSentEvents):
    """The subscription's payloads as graphql-sse messages until it completes or the client
    goes; a keep-alive comment whenever nothing else was sent for a while."""

    def __init__(
        self,
        results: AsyncGenerator[ExecutionResult, None],
        keep_alive: float,
        headers: dict[str, str],
    ) -> None:
        super().__init__(keep_alive, headers)
        self.results = results

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self._start(send)
        pump = asyncio.create_task(self._pump())
        others = [
            asyncio.create_task(self._keep_alive()),
            asyncio.create_task(disconnected(receive)),
        ]
        try:
            await asyncio.wait([pump, *others], return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (pump, *others):
                task.cancel()
            await asyncio.gather(pump, *others, return_exceptions=True)
        if pump.cancelled():
            return  # the client went
        if pump.exception() is not None:
            logger.error("GraphQL event stream failed", exc_info=pump.exception())
            return
        await self._finish()

    async def _pump(self) -> None:
        async with aclosing(self.results):
            async for result in self.results:
                await self._write(sse.next_message(payload_of(result)))
        await self._write(sse.COMPLETE)
