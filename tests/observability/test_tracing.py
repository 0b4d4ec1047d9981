"""OpenTelemetry traces: a request's span with its request id and operation, and one child span
per SQL statement it ran, on both paths to the database (SQLAlchemy for the mutation, the
direct reads on the driver for the lookup), on SQLite and PostgreSQL. The spans go to the
SDK's in-memory exporter through `instrument`'s provider argument. Without
OTEL_EXPORTER_OTLP_ENDPOINT nothing of OpenTelemetry is even imported."""

from __future__ import annotations

import json
import secrets
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind

from supportdesk.http.tracing import instrument
from tests.client import Answer, GraphQLClient
from tests.conftest import BACKENDS, WorkspaceFixture, make_workspace
from tests.observability.scrape import wait_for
from tests.processes import command_env
from tests.servers import RunningServer

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
    assert len(statements) >= 2  # the key, the issue
    assert [s.attributes and s.attributes["db.query.text"] for s in statements] == (
        traced.server.statements.statements
    )
    assert {s.name for s in statements} == {"SELECT"}


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
