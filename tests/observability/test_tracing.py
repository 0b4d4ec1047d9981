"""OpenTelemetry traces: a request's span with its request id and operation, and one child span
per SQL statement it ran (a mutation's, a lookup's), on SQLite and PostgreSQL. The spans go to the
SDK's in-memory exporter through `instrument`'s provider argument. Without
OTEL_EXPORTER_OTLP_ENDPOINT nothing of OpenTelemetry is even imported."""

from __future__ import annotations

import json
import secrets
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind

from supportdesk.http.tracing import instrument
from tests.client import Answer, GraphQLClient
from tests.conftest import BACKENDS, WorkspaceFixture, make_workspace
from tests.observability.scrape import wait_for
from tests.processes import ServeProcess, command_env, run_cli
from tests.servers import RunningServer

pytestmark = pytest.mark.processes


CREATE = """mutation Create($input: CreateIssueInput!) {
  createIssue(input: $input) { issue { id subject } error { code } } }"""
LOOKUP = "query Lookup($id: ID!) { issue(id: $id) { id subject } }"
KEY_USED = "{ apiKeys(first: 5) { edges { node { lastUsedAt } } } }"


@dataclass
class Traced:
    server: RunningServer
    spans: InMemorySpanExporter
    workspace: WorkspaceFixture

    def request_span(self, request_id: str) -> ReadableSpan:
        """The request's span, once it has ended (just after the answer has gone)."""
        found = wait_for(
            self.spans.get_finished_spans,
            lambda spans: any(_request_id(s) == request_id for s in spans),
        )
        matches = [s for s in found if _request_id(s) == request_id]
        assert len(matches) == 1, [s.name for s in found]
        return matches[0]

    def children(self, parent: ReadableSpan) -> list[ReadableSpan]:
        return sorted(
            (
                s
                for s in self.spans.get_finished_spans()
                if s.parent is not None and s.parent.span_id == parent.context.span_id
            ),
            key=lambda s: s.start_time or 0,
        )


def _post(
    api: GraphQLClient, query: str, variables: dict[str, Any], headers: dict[str, str]
) -> Answer:
    response = api.http.post(
        "/graphql",
        json={"query": query, "variables": variables},
        headers={**api.headers(), **headers},
    )
    return Answer(response.status_code, response.json(), response.headers)


def _request_id(span: ReadableSpan) -> object:
    return (span.attributes or {}).get("supportdesk.request_id")


@pytest.fixture(scope="module", params=BACKENDS)
def traced(request: pytest.FixtureRequest) -> Iterator[Traced]:
    url = request.getfixturevalue(f"{request.param}_url")
    server = RunningServer(request.param, url)
    spans = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(spans))
    instrument(server.app, server.db, provider)
    server.start()
    try:
        yield Traced(server, spans, make_workspace(server))
    finally:
        server.stop()
        provider.shutdown()


def _quiet(traced: Traced) -> None:
    """The key's last-used time is written after the first answer; once it is, no request of
    the key writes anything in the background for a minute."""
    api = traced.workspace.client()
    wait_for(
        lambda: api(KEY_USED).data["apiKeys"]["edges"],
        lambda edges: all(edge["node"]["lastUsedAt"] for edge in edges),
    )
    traced.spans.clear()
    traced.server.statements.reset()


def test_a_request_has_its_span_and_a_child_span_per_statement(traced: Traced) -> None:
    _quiet(traced)
    api = traced.workspace.client()
    variables = {"input": {"subject": "Traced", "body": "Hello", "requesterEmail": "r@example.com"}}

    answer = _post(api, CREATE, variables, {"X-Request-Id": f"create-{secrets.token_hex(4)}"})

    assert answer.status == 200 and answer.data["createIssue"]["error"] is None
    span = traced.request_span(answer.headers["x-request-id"])
    assert span.kind == SpanKind.SERVER
    assert span.name == "mutation Create"
    assert span.attributes is not None
    assert span.attributes["graphql.operation.name"] == "Create"
    assert span.attributes["http.response.status_code"] == 200
    statements = traced.children(span)
    assert [s.attributes and s.attributes["db.query.text"] for s in statements] == (
        traced.server.statements.statements
    )
    assert any(s.name == "INSERT" for s in statements)
    assert {s.kind for s in statements} == {SpanKind.CLIENT}
    assert {s.context.trace_id for s in statements} == {span.context.trace_id}


def test_direct_reads_get_their_spans_and_the_callers_trace_is_continued(traced: Traced) -> None:
    api = traced.workspace.client()
    created = api(
        CREATE, {"input": {"subject": "Read", "body": "Hi", "requesterEmail": "r@example.com"}}
    )
    _quiet(traced)
    trace_id = secrets.token_hex(16)
    headers = {"traceparent": f"00-{trace_id}-{secrets.token_hex(8)}-01"}

    answer = _post(api, LOOKUP, {"id": created.data["createIssue"]["issue"]["id"]}, headers)

    assert answer.data["issue"]["subject"] == "Read"
    span = traced.request_span(answer.headers["x-request-id"])
    assert span.name == "query Lookup"
    assert f"{span.context.trace_id:032x}" == trace_id
    statements = traced.children(span)
    # The issue, read by one statement that also checks the key (looked up by the request
    # that created the issue).
    [statement] = statements
    assert statement.attributes and "FROM api_keys" in str(statement.attributes["db.query.text"])
    assert [s.attributes and s.attributes["db.query.text"] for s in statements] == (
        traced.server.statements.statements
    )
    assert {s.name for s in statements} == {"SELECT"}


def test_other_requests_are_named_by_their_route(traced: Traced) -> None:
    request_id = f"page-{secrets.token_hex(4)}"

    response = traced.workspace.client().http.get("/login", headers={"X-Request-Id": request_id})

    assert response.status_code == 200
    span = traced.request_span(request_id)
    assert span.name == "GET /login"
    assert span.attributes is not None and span.attributes["http.route"] == "/login"


class Collector:
    """An OTLP/HTTP receiver on this machine: keeps the spans of every export it is sent."""

    def __init__(self) -> None:
        received = self.requests = []  # type: list[ExportTraceServiceRequest]

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                export = ExportTraceServiceRequest()
                export.ParseFromString(body)
                received.append(export)
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *_: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def spans(self) -> list[tuple[str, str]]:
        """(service name, span name) of everything received."""
        return [
            (_service(resource_spans), span.name)
            for export in self.requests
            for resource_spans in export.resource_spans
            for scope_spans in resource_spans.scope_spans
            for span in scope_spans.spans
        ]


def _service(resource_spans: Any) -> str:
    names = [
        a.value.string_value for a in resource_spans.resource.attributes if a.key == "service.name"
    ]
    return names[0] if names else ""


def test_serve_sends_its_spans_to_the_otlp_endpoint_at_the_latest_when_it_stops(
    tmp_path: Path,
) -> None:
    collector = Collector()
    env = command_env(database_url=f"sqlite:///{tmp_path}/traced.db")
    made = json.loads(
        run_cli(env, "init", "--workspace", "Traced", "--admin-email", "ops@example.com", "--json")
    )
    env["OTEL_EXPORTER_OTLP_ENDPOINT"] = collector.url
    env["OTEL_BSP_SCHEDULE_DELAY"] = "600000"  # nothing leaves before the worker stops
    serve = ServeProcess(env, 2).start()
    try:
        serve.wait_ready()
        api = GraphQLClient(serve.base_url, made["api_key"])
        assert api("query Probe { apiInfo }").status == 200
    finally:
        serve.stop()
        collector.server.shutdown()

    assert ("supportdesk", "query Probe") in collector.spans()
    assert ("supportdesk", "SELECT") in collector.spans()


# Ours, and the parts of OpenTelemetry that only tracing needs. (redis-py imports the
# OpenTelemetry API on its own whenever it is installed.)
TRACING_MODULES = (
    "supportdesk.observability.tracing",
    "supportdesk.http.tracing",
    "opentelemetry.sdk.trace",
    "opentelemetry.exporter",
)
_LOADED = """
import json
import sys
from supportdesk.app import create_app
from supportdesk.config import Settings
create_app(Settings(database_url=sys.argv[1]))
print(json.dumps(sorted(sys.modules)))
"""


@pytest.mark.parametrize("endpoint", [None, "http://127.0.0.1:4318"])
def test_tracing_is_imported_only_with_an_endpoint(tmp_path: Path, endpoint: str | None) -> None:
    env = {k: v for k, v in command_env().items() if not k.startswith("OTEL_")}
    if endpoint:
        env["OTEL_EXPORTER_OTLP_ENDPOINT"] = endpoint
    database = f"sqlite+aiosqlite:///{tmp_path}/unused.db"

    done = subprocess.run(
        [sys.executable, "-c", _LOADED, database],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )

    assert done.returncode == 0, done.stderr
    loaded = {
        wanted
        for wanted in TRACING_MODULES
        for module in json.loads(done.stdout)
        if module == wanted or module.startswith(f"{wanted}.")
    }
    assert loaded == (set(TRACING_MODULES) if endpoint else set())
