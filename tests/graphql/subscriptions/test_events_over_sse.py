"""subscription { events } over graphql-sse (distinct connections) at POST
/graphql/stream, through a real server."""

from __future__ import annotations

import time

import pytest

from tests import factories
from tests.client import GraphQLClient
from tests.conftest import WorkspaceFixture
from tests.graphql.subscriptions.clients import SseSubscription, sequence_of, type_of
from tests.rest.client import RestClient
from tests.rest.test_event_stream import last_sequence


@pytest.fixture
def rest(workspace: WorkspaceFixture) -> RestClient:
    return RestClient(workspace.server.base_url, workspace.key)


def test_events_arrive_as_next_messages_in_sequence_order(
    workspace: WorkspaceFixture, rest: RestClient
) -> None:
    start = last_sequence(workspace)
    with SseSubscription(workspace.server.base_url, workspace.key, {"after": start}) as stream:
        assert stream.status == 200
        assert stream.headers["content-type"].startswith("text/event-stream")
        assert stream.headers["x-accel-buffering"] == "no"
        rest.created(subject="Over SSE")
        got = stream.next_payloads(2)
    assert [sequence_of(p) for p in got] == [start + 1, start + 2]
    assert [type_of(p) for p in got] == ["contact.created", "issue.created"]


@pytest.mark.parametrize(
    ("query", "variables", "code"),
    [
        ('subscription { events(types: ["issue.exploded"]) { id } }', {}, "BAD_USER_INPUT"),
        ("subscription { events { nope } }", {}, "GRAPHQL_VALIDATION_FAILED"),
        ("subscription {", {}, "GRAPHQL_PARSE_FAILED"),
        ("{ apiInfo }", {}, "BAD_USER_INPUT"),
        (
            "subscription { " + " ".join(f"e{n}: events {{ id }}" for n in range(60)) + " }",
            {},
            "QUERY_TOO_COMPLEX",
        ),
    ],
)
def test_a_refused_document_is_a_next_message_with_errors_then_complete(
    workspace: WorkspaceFixture, query: str, variables: dict[str, object], code: str
) -> None:
    with SseSubscription(workspace.server.base_url, workspace.key, variables, query=query) as s:
        assert s.status == 200
        event, payload = s.next()
        assert s.next() == ("complete", None)
        assert s.ended()
    assert event == "next"
    assert payload["data"] is None
    assert payload["errors"][0]["extensions"]["code"] == code


def test_the_key_is_checked_before_the_stream_opens(workspace: WorkspaceFixture) -> None:
    base = workspace.server.base_url
    missing = SseSubscription(base, None)
    assert missing.status == 401
    assert missing.body["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"
    assert missing.headers["www-authenticate"] == "Bearer"
    wrong = SseSubscription(base, "svc_mk_wrong")
    assert wrong.status == 401


def test_other_methods_and_media_types_are_refused(workspace: WorkspaceFixture) -> None:
    base = workspace.server.base_url
    assert SseSubscription(base, workspace.key, method="GET").status == 405
    json_only = SseSubscription(base, workspace.key, headers={"Accept": "application/json"})
    assert json_only.status == 406
    assert json_only.body["errors"][0]["extensions"]["code"] == "NOT_ACCEPTABLE"


def test_a_revoked_keys_stream_ends_within_five_seconds_with_an_error(
    workspace: WorkspaceFixture, api: GraphQLClient
) -> None:
    owner = factories.machine_user(api, "SSE subscriber")["id"]
    created = factories.api_key(api, owner, ["issues:read"])
    with SseSubscription(workspace.server.base_url, created["secret"]) as stream:
        time.sleep(0.3)
        api.ok(factories.REVOKE_API_KEY, {"id": created["apiKey"]["id"]})
        revoked_at = time.monotonic()
        [last] = stream.next_payloads(1, timeout=5)
        assert stream.next() == ("complete", None)
        assert stream.ended()
    assert time.monotonic() - revoked_at < 5
    assert last["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"
