"""A span per request (the `otel` extra; docs/operations.md), parent of its statements' spans.

Imported only when OTEL_EXPORTER_OTLP_ENDPOINT is set (app.py). The span opens when the
request arrives, continuing the caller's trace when it sends `traceparent`, and is named when
it ends: `query IssueLookup` for a GraphQL operation (from the access record), else the method
and route. It carries the request id, the HTTP status and the operation; a 5xx marks it as an
error, a client that went away (499) does not.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from supportdesk.db import Database
from supportdesk.http.access_log import CLIENT_CLOSED_REQUEST, AccessRecord, access_record
from supportdesk.http.logged_path import logged_path
from supportdesk.observability.tracing import (
    mark_failed,
    otlp_provider,
    request_span,
    trace_statements,
)

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.trace import Span, Tracer
    from starlette.applications import Starlette


def instrument(
    app: Starlette, database: Database, provider: TracerProvider | None = None
) -> TracerProvider:
    """Traces every request of `app` and every statement of `database`, into `provider`
    (tests give one with an in-memory exporter), by default one exporting over OTLP.
    Call it before the app serves its first request; shut the provider down when the app
    stops (app.py's lifespan does), so that the last spans are sent."""
    provider = provider or otlp_provider()
    tracer = provider.get_tracer("supportdesk")
    trace_statements(database, tracer)
    app.add_middleware(RequestSpanMiddleware, tracer=tracer)  # the outermost
    return provider


class RequestSpanMiddleware:
    def __init__(self, app: ASGIApp, tracer: Tracer) -> None:
        self.app = app
        self.tracer = tracer

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        status: int | None = None

        async def send_and_note_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        with request_span(self.tracer, scope["method"], scope["headers"]) as span:
            try:
                await self.app(scope, receive, send_and_note_status)
            except BaseException:
                _describe(span, scope, access_record(scope), status or 500)
                raise
            # Nothing sent and nothing raised: the client went away (the access log's 499).
            _describe(span, scope, access_record(scope), status or CLIENT_CLOSED_REQUEST)


def _describe(span: Span, scope: Scope, record: AccessRecord, status: int) -> None:
    matched = getattr(scope.get("route"), "path", None)
    # A mounted app's routes are relative to its mount, which `root_path` holds.
    route = f"{scope.get('root_path', '')}{matched}" if matched else None
    span.set_attributes(
        {
            "http.request.method": scope["method"],
            "url.path": logged_path(scope),
            "http.response.status_code": status,
            "supportdesk.request_id": scope.get("state", {}).get("request_id") or "",
        }
    )
    if route:
        span.set_attribute("http.route", route)
    if record.operation_type is not None:
        span.set_attributes(
            {
                "graphql.operation.type": record.operation_type,
                "graphql.operation.name": record.operation or "",
            }
        )
        span.update_name(f"{record.operation_type} {record.operation or ''}".strip())
    elif record.operation is not None:
        span.set_attribute("supportdesk.operation", record.operation)
        span.update_name(record.operation)
    elif route:
        span.update_name(f"{scope['method']} {route}")
    else:
        span.update_name(scope["method"])
    if status >= 500:
        mark_failed(span)
    if record.workspace is not None:
        span.set_attribute("supportdesk.workspace_id", record.workspace)
