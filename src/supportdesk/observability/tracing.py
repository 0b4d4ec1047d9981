"""OpenTelemetry traces (the `otel` extra; docs/operations.md): the tracer provider that exports
over OTLP, and a span for every SQL statement, child of the request's span.

Imported only when OTEL_EXPORTER_OTLP_ENDPOINT is set (app.py): without it no module of
OpenTelemetry is loaded and nothing is spent. Every statement the database layer runs goes
through one place (db/connection.py), which runs it inside its span. Spans carry the SQL,
never its parameters.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager

try:
    from opentelemetry import propagate
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter
    from opentelemetry.trace import Span, SpanKind, Status, StatusCode, Tracer
except ImportError as error:  # pragma: no cover - depends on what is installed
    raise ImportError(
        "OTEL_EXPORTER_OTLP_ENDPOINT is set, and traces need the otel extra:"
        " pip install 'supportdesk[otel]'"
    ) from error

from supportdesk.db import Database

SERVICE_NAME = "supportdesk"
_PROPAGATED = frozenset({b"traceparent", b"tracestate", b"baggage"})


def otlp_provider() -> TracerProvider:
    """Spans batched to the OTLP endpoint that the OTEL_EXPORTER_OTLP_* variables name, over
    HTTP (protobuf) or, with OTEL_EXPORTER_OTLP_PROTOCOL=grpc, gRPC. The provider flushes
    what is left when the process exits."""
    resource = Resource.create()
    if str(resource.attributes.get("service.name", "")).startswith("unknown_service"):
        resource = resource.merge(Resource({"service.name": SERVICE_NAME}))
    provider = TracerProvider(resource=resource)
    provider.add_span_processor(BatchSpanProcessor(_exporter()))
    return provider


def _exporter() -> SpanExporter:
    protocol = os.environ.get(
        "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
        os.environ.get("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf"),
    )
    if protocol == "grpc":
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
    else:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import (  # type: ignore[assignment]
            OTLPSpanExporter,
        )
    return OTLPSpanExporter()


def request_span(
    tracer: Tracer, name: str, headers: Iterable[tuple[bytes, bytes]]
) -> AbstractContextManager[Span]:
    """A request's server span, current while the block runs; it continues the caller's
    trace when the headers carry one (W3C `traceparent`, or as OTEL_PROPAGATORS say)."""
    carrier = {k.decode("latin-1"): v.decode("latin-1") for k, v in headers if k in _PROPAGATED}
    return tracer.start_as_current_span(
        name, context=propagate.extract(carrier), kind=SpanKind.SERVER
    )


def mark_failed(span: Span) -> None:
    span.set_status(Status(StatusCode.ERROR))


def trace_statements(database: Database, tracer: Tracer) -> StatementSpans:
    """From now on, every statement `database` runs has its span."""
    spans = StatementSpans(tracer, database.dialect)
    database.trace_statements(spans)
    return spans


class StatementSpans:
    """A client span around each SQL statement."""

    def __init__(self, tracer: Tracer, system: str) -> None:
        self.tracer = tracer
        self.system = system

    def start(self, statement: str) -> Span:
        words = statement.split(None, 1)
        operation = words[0].upper() if words else "SQL"
        return self.tracer.start_span(
            operation,
            kind=SpanKind.CLIENT,
            attributes={
                "db.system.name": self.system,
                "db.operation.name": operation,
                "db.query.text": statement,
            },
        )

    @contextmanager
    def around(self, statement: str) -> Iterator[Span]:
        """The statement's span: db/connection.py runs the statement inside it."""
        span = self.start(statement)
        try:
            yield span
        except BaseException as error:
            _end_with_error(span, error)
            raise
        span.end()


def _end_with_error(span: Span, error: BaseException) -> None:
    # The type only: a driver's message may quote the values of the statement.
    span.set_attribute("error.type", type(error).__name__)
    span.set_status(Status(StatusCode.ERROR, type(error).__name__))
    span.end()
