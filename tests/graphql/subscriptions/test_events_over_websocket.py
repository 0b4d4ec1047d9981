"""subscription { events } over graphql-transport-ws at WebSocket /graphql: the live
stream's rules (docs/events-stream.md) through a real connection to a real server."""

from __future__ import annotations

import time

import pytest

from tests import factories
from tests.client import GraphQLClient
from tests.conftest import WorkspaceFixture
from tests.graphql.subscriptions.clients import (
    SseSubscription,
    WebSocketClient,
    sequence_of,
    type_of,
)
from tests.rest.client import RestClient
from tests.rest.streams import Stream
from tests.rest.test_event_stream import last_sequence, remove_events_up_to


@pytest.fixture
def rest(workspace: WorkspaceFixture) -> RestClient:
    return RestClient(workspace.server.base_url, workspace.key)


def test_events_arrive_in_sequence_order_with_the_events_fields(
    workspace: WorkspaceFixture, rest: RestClient
) -> None:
    with WebSocketClient(workspace.server.base_url, workspace.key) as client:
        assert client.acknowledged
        client.subscribe("1")
        time.sleep(0.3)  # subscribed: events from now on
        rest.created(subject="Over WebSocket")
        got = client.next_payloads(2)

    assert [type_of(p) for p in got] == ["contact.created", "issue.created"]
    assert sequence_of(got[1]) == sequence_of(got[0]) + 1
    event = got[1]["data"]["events"]
    assert set(event) == {"id", "sequence", "type", "createdAt", "data"}
    assert event["id"].startswith("evt_")
    assert event["data"]["issue"]["subject"] == "Over WebSocket"


def test_after_sends_the_kept_events_first_then_live_ones_without_gap(
    workspace: WorkspaceFixture, rest: RestClient
) -> None:
    start = last_sequence(workspace)
    rest.created(subject="One")
    rest.created(subject="Two")
    with WebSocketClient(workspace.server.base_url, workspace.key) as client:
        client.subscribe("1", {"after": start + 1})
        caught_up = client.next_payloads(2)
        rest.created(subject="Three")
        live = client.next_payloads(1)
    assert [sequence_of(p) for p in caught_up + live] == [start + 2, start + 3, start + 4]


def test_a_reset_is_a_payload_with_events_expired_and_the_stream_goes_on(
    workspace: WorkspaceFixture, rest: RestClient
) -> None:
    start = last_sequence(workspace)
    for subject in ("One", "Two", "Three"):
        rest.created(subject=subject)  # start + 1 to start + 4
    remove_events_up_to(workspace, start + 2)

    with WebSocketClient(workspace.server.base_url, workspace.key) as client:
        client.subscribe("1", {"after": 1})
        reset, *kept = client.next_payloads(3)

    assert reset["data"] is None
    [error] = reset["errors"]
    assert error["extensions"] == {"code": "EVENTS_EXPIRED", "oldestSequence": start + 3}
    assert error["path"] == ["events"]
    assert [sequence_of(p) for p in kept] == [start + 3, start + 4]


def test_a_key_sees_only_the_types_it_may_read_and_people_as_it_may(
    workspace: WorkspaceFixture, rest: RestClient
) -> None:
    issues_only = workspace.create_key(["issues:read"])
    with WebSocketClient(workspace.server.base_url, issues_only) as client:
        client.subscribe("1", {"types": ["issue.created", "contact.created"]})
        time.sleep(0.3)
        rest.created(subject="Scoped")
        [got] = client.next_payloads(1)
        assert client.nothing_within(0.5)
    assert type_of(got) == "issue.created"  # no contact.created without contacts:read
    assert set(got["data"]["events"]["data"]["issue"]["requester"]) == {"id"}


@pytest.mark.parametrize(
    ("variables", "code", "extension"),
    [
        ({"after": -1}, "BAD_USER_INPUT", None),
        ({"types": ["issue.created", "issue.exploded"]}, "BAD_USER_INPUT", None),
        ({"after": "ten"}, "BAD_USER_INPUT", None),  # as a variable of any request
        ({"after": 10**9}, "BAD_USER_INPUT", "lastSequence"),
    ],
)
def test_bad_arguments_are_an_error_in_the_api_shape(
    workspace: WorkspaceFixture, variables: dict[str, object], code: str, extension: str | None
) -> None:
    with WebSocketClient(workspace.server.base_url, workspace.key) as client:
        client.subscribe("1", variables)
        message = client.receive()
        assert message is not None and message["type"] == "error", message
        [error] = message["payload"]
        assert error["extensions"]["code"] == code
        if extension is not None:
            assert extension in error["extensions"]
        # The connection stays up for the next subscription.
        client.subscribe("2")
        assert client.nothing_within(0.5)


def test_a_key_without_an_event_scope_is_forbidden(workspace: WorkspaceFixture) -> None:
    key = workspace.create_key(["issues:write"])
    with WebSocketClient(workspace.server.base_url, key) as client:
        client.subscribe("1")
        message = client.receive()
    assert message is not None and message["type"] == "error"
    assert message["payload"][0]["extensions"]["code"] == "FORBIDDEN"


@pytest.mark.parametrize(
    "payload",
    [
        {"authorization": "Bearer svc_mk_wrong"},
        {"authorization": "Basic abc"},
        {},
    ],
)
def test_a_wrong_or_missing_key_closes_the_connection_with_4403(
    workspace: WorkspaceFixture, payload: dict[str, str]
) -> None:
    with WebSocketClient(workspace.server.base_url, None, payload=payload) as client:
        assert not client.acknowledged
        assert client.close_code == 4403


def test_a_wrong_key_of_the_right_shape_closes_with_4403(workspace: WorkspaceFixture) -> None:
    wrong = workspace.key[:-6] + ("aaaaaa" if not workspace.key.endswith("aaaaaa") else "bbbbbb")
    with WebSocketClient(workspace.server.base_url, wrong) as client:
        assert not client.acknowledged
        assert client.close_code == 4403


def test_a_revoked_keys_subscription_ends_within_five_seconds(
    workspace: WorkspaceFixture, api: GraphQLClient
) -> None:
    owner = factories.machine_user(api, "Subscriber")["id"]
    created = factories.api_key(api, owner, ["issues:read"])
    with WebSocketClient(workspace.server.base_url, created["secret"]) as client:
        client.subscribe("1")
        time.sleep(0.3)
        api.ok(factories.REVOKE_API_KEY, {"id": created["apiKey"]["id"]})
        revoked_at = time.monotonic()
        [last] = client.next_payloads(1, timeout=5)
        complete = client.receive(timeout=1)
        ended_after = time.monotonic() - revoked_at

    assert last["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"
    assert complete == {"id": "1", "type": "complete"}
    assert ended_after < 5


def test_the_eleventh_stream_of_a_key_is_refused_whatever_its_transport(
    workspace: WorkspaceFixture,
) -> None:
    key = workspace.create_key(["issues:read"])
    base = workspace.server.base_url
    rest_streams = [Stream(base, key) for _ in range(4)]
    sse = [SseSubscription(base, key) for _ in range(3)]
    client = WebSocketClient(base, key)
    try:
        for id in ("1", "2", "3"):
            client.subscribe(id)
        assert [s.status for s in rest_streams + sse] == [200] * 7
        assert client.nothing_within(0.5)  # 10 open

        client.subscribe("4")
        message = client.receive()
        assert message is not None and message["type"] == "error"
        assert message["payload"][0]["extensions"] == {"code": "LIMIT_REACHED", "limit": 10}
        assert Stream(base, key).status == 429

        client.send({"id": "1", "type": "complete"})  # gives its place back
        time.sleep(0.3)
        client.subscribe("5")
        assert client.nothing_within(0.5)  # subscribed: nothing to say yet
    finally:
        client.close()
        for stream in rest_streams:
            stream.close()
        for subscription in sse:
            subscription.close()


def test_the_document_limits_apply_to_subscriptions(workspace: WorkspaceFixture) -> None:
    aliases = " ".join(f"e{n}: events {{ id }}" for n in range(60))
    with WebSocketClient(workspace.server.base_url, workspace.key) as client:
        client.subscribe("1", query=f"subscription {{ {aliases} }}")
        message = client.receive()
    assert message is not None and message["type"] == "error"
    assert message["payload"][0]["extensions"]["code"] == "QUERY_TOO_COMPLEX"


def test_only_subscriptions_run_over_the_websocket(workspace: WorkspaceFixture) -> None:
    with WebSocketClient(workspace.server.base_url, workspace.key) as client:
        client.subscribe("1", query="{ apiInfo }")
        message = client.receive()
    assert message is not None and message["type"] == "error"
    assert message["payload"][0]["extensions"]["code"] == "BAD_USER_INPUT"
    assert "POST /graphql" in message["payload"][0]["message"]


def test_post_graphql_answers_a_subscription_with_where_it_runs(
    workspace: WorkspaceFixture, api: GraphQLClient
) -> None:
    response = api.http.post(
        "/graphql",
        json={"query": "subscription { events { id } }"},
        headers={"Authorization": f"Bearer {workspace.key}"},
    )
    assert response.status_code == 200
    [error] = response.json()["errors"]
    assert error["extensions"]["code"] == "BAD_USER_INPUT"
    assert "/graphql/stream" in error["message"]


_MALFORMED = [
    "[]",
    "1",
    "null",
    '{"type": 1}',
    '{"type": "subscribe", "id": "1", "payload": null}',
    '{"type": "subscribe", "id": 1, "payload": {"query": "subscription { x }"}}',
    '{"type": "subscribe", "id": "1", "payload": {"query": ["not", "text"]}}',
    '{"type": "subscribe", "id": "1", "payload": {"query": "{ x }", "variables": []}}',
    '{"type": "complete", "id": {}}',
]


@pytest.mark.parametrize("frame", _MALFORMED)
def test_a_malformed_message_closes_with_4400_and_logs_no_error(
    workspace: WorkspaceFixture, frame: str, caplog: pytest.LogCaptureFixture
) -> None:
    with (
        caplog.at_level("INFO"),
        WebSocketClient(workspace.server.base_url, workspace.key) as client,
    ):
        assert client.acknowledged
        client.socket.send(frame)
        assert client.receive() is None

    assert client.close_code == 4400
    assert [record.getMessage() for record in caplog.records if record.levelname == "ERROR"] == []
