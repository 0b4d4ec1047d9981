"""Update, disable, rotate, delete; test sends, redelivery and replay queue deliveries."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import insert, select

from supportdesk.db.tables import events, webhook_deliveries
from supportdesk.domain.ids import new_id
from supportdesk.domain.webhooks.deliveries import MAX_WAITING_FOR_REPLAY
from tests.client import GraphQLClient
from tests.conftest import WorkspaceFixture, make_workspace
from tests.graphql.events.helpers import all_events, last_sequence
from tests.graphql.issues.helpers import CREATE as CREATE_ISSUE
from tests.graphql.webhooks.helpers import (
    DELETE,
    DELIVERIES,
    LIST,
    RECEIVER,
    REDELIVER,
    REPLAY,
    ROTATE,
    SEND_TEST,
    UPDATE,
    new_endpoint,
)


def update(api: GraphQLClient, **values: Any) -> dict[str, Any]:
    payload: dict[str, Any] = api.ok(UPDATE, {"input": values})["updateWebhookEndpoint"]
    return payload


def make_issue(api: GraphQLClient, subject: str = "Help") -> None:
    issue = {"subject": subject, "body": "b", "requesterEmail": "ada@example.com"}
    assert api.ok(CREATE_ISSUE, {"input": issue})["createIssue"]["error"] is None


def test_update_changes_what_is_given_and_records_the_changes(api: GraphQLClient) -> None:
    endpoint = new_endpoint(api, description="old")["webhookEndpoint"]

    changed = update(api, id=endpoint["id"], url=f"{RECEIVER}/v2", eventTypes=["message.created"])[
        "webhookEndpoint"
    ]

    assert changed["url"] == f"{RECEIVER}/v2"
    assert changed["eventTypes"] == ["message.created"]
    assert changed["description"] == "old"
    [event] = all_events(api, types=["webhook_endpoint.updated"])
    assert event["data"]["changes"] == {
        "url": {"from": RECEIVER, "to": f"{RECEIVER}/v2"},
        "eventTypes": {"from": [], "to": ["message.created"]},
    }


def test_events_and_audit_entries_show_the_url_with_its_query_masked(
    api: GraphQLClient,
) -> None:
    masked = f"{RECEIVER}?***"
    endpoint = new_endpoint(api, url=f"{RECEIVER}?token=first-s3cret")["webhookEndpoint"]
    update(api, id=endpoint["id"], url=f"{RECEIVER}?token=second-s3cret")
    listed = api.ok(LIST)["webhookEndpoints"]["edges"][0]["node"]["url"]
    api.ok(DELETE, {"id": endpoint["id"]})

    events = all_events(api, types=["webhook_endpoint.created", "webhook_endpoint.updated"])
    events += all_events(api, types=["webhook_endpoint.deleted"])
    audit = api.ok("{ auditEvents(first: 10) { edges { node { action data } } } }")
    entries = [e["node"] for e in audit["auditEvents"]["edges"]]
    entries = [e for e in entries if e["action"].startswith("webhook_endpoint.")]

    # The endpoint itself, read with webhooks:manage, keeps the URL its receiver needs.
    assert listed == f"{RECEIVER}?token=second-s3cret"
    assert [e["data"]["webhookEndpoint"]["url"] for e in events] == [masked] * 3
    # Only the query changed: the change is still told, both sides masked.
    assert events[1]["data"]["changes"] == {"url": {"from": masked, "to": masked}}
    assert len(entries) == 3 and {e["data"]["url"] for e in entries} == {masked}
    assert entries[1]["data"]["changes"] == {"url": {"from": masked, "to": masked}}
    assert "s3cret" not in json.dumps(events) + json.dumps(entries)


def test_disabling_by_hand_says_manual_and_enabling_clears_it(api: GraphQLClient) -> None:
    endpoint = new_endpoint(api)["webhookEndpoint"]

    disabled = update(api, id=endpoint["id"], enabled=False)["webhookEndpoint"]
    enabled = update(api, id=endpoint["id"], enabled=True)["webhookEndpoint"]

    assert (disabled["status"], disabled["disabledReason"]) == ("disabled", "manual")
    assert (enabled["status"], enabled["disabledReason"]) == ("active", None)


def test_an_unsafe_new_url_is_refused_and_nothing_changes(api: GraphQLClient) -> None:
    endpoint = new_endpoint(api)["webhookEndpoint"]

    payload = update(api, id=endpoint["id"], url="http://169.254.169.254/")

    assert payload["error"]["fields"] == [{"field": "url", "code": "UNSAFE_URL"}]
    assert api.ok(LIST)["webhookEndpoints"]["edges"][0]["node"]["url"] == RECEIVER


def test_an_endpoint_disabled_by_hand_gets_no_new_deliveries(api: GraphQLClient) -> None:
    endpoint = new_endpoint(api)["webhookEndpoint"]
    make_issue(api)
    update(api, id=endpoint["id"], enabled=False)

    make_issue(api, "After")

    deliveries = api.ok(DELIVERIES)["webhookEndpoints"]["edges"][0]["node"]["deliveries"]
    # Newest first: its own creation (it takes every type), the first issue, nothing after.
    assert [d["node"]["eventType"] for d in deliveries["edges"]] == [
        "issue.created",
        "contact.created",
        "webhook_endpoint.created",
    ]


def test_deliveries_follow_the_endpoint_s_event_types_newest_first(api: GraphQLClient) -> None:
    new_endpoint(api, eventTypes=["issue.created"])

    make_issue(api, "One")
    make_issue(api, "Two")

    deliveries = api.ok(DELIVERIES)["webhookEndpoints"]["edges"][0]["node"]["deliveries"]
    assert deliveries["totalCount"] == 2
    nodes = [edge["node"] for edge in deliveries["edges"]]
    assert [n["eventType"] for n in nodes] == ["issue.created", "issue.created"]
    assert [n["status"] for n in nodes] == ["pending", "pending"]
    assert nodes[0]["id"] > nodes[1]["id"]
    events = all_events(api, types=["issue.created"])
    assert [n["eventId"] for n in nodes] == [e["id"] for e in reversed(events)]


def test_rotation_gives_a_new_secret_once_and_refuses_a_window_out_of_range(
    api: GraphQLClient,
) -> None:
    made = new_endpoint(api)
    endpoint = made["webhookEndpoint"]

    too_long = api.ok(ROTATE, {"input": {"id": endpoint["id"], "keepPreviousForSeconds": 604_801}})
    rotated = api.ok(ROTATE, {"input": {"id": endpoint["id"], "keepPreviousForSeconds": 0}})

    assert too_long["rotateWebhookSecret"]["error"]["fields"] == [
        {"field": "keepPreviousForSeconds", "code": "INVALID"}
    ]
    payload = rotated["rotateWebhookSecret"]
    assert payload["secret"].startswith("whsec_") and payload["secret"] != made["secret"]
    assert payload["webhookEndpoint"]["secretPrefix"] == payload["secret"][:12]


def test_delete_removes_the_endpoint_and_records_it(api: GraphQLClient) -> None:
    endpoint = new_endpoint(api)["webhookEndpoint"]

    deleted = api.ok(DELETE, {"id": endpoint["id"]})["deleteWebhookEndpoint"]
    again = api.ok(DELETE, {"id": endpoint["id"]})["deleteWebhookEndpoint"]

    assert deleted["webhookEndpoint"]["id"] == endpoint["id"]
    assert again["error"]["code"] == "NOT_FOUND"
    assert api.ok(LIST)["webhookEndpoints"]["totalCount"] == 0
    [event] = all_events(api, types=["webhook_endpoint.deleted"])
    assert event["data"]["webhookEndpoint"]["id"] == endpoint["id"]


def test_a_test_send_is_a_delivery_of_its_own_and_not_in_the_log(api: GraphQLClient) -> None:
    endpoint = new_endpoint(api)["webhookEndpoint"]
    before = last_sequence(api)

    sent = api.ok(SEND_TEST, {"id": endpoint["id"]})["sendTestWebhook"]

    delivery = sent["delivery"]
    assert delivery["eventType"] == "webhook.test" and delivery["status"] == "pending"
    assert delivery["eventId"].startswith("evt_") and delivery["event"] is None
    assert last_sequence(api) == before


def test_redelivery_queues_the_same_event_again(api: GraphQLClient) -> None:
    endpoint = new_endpoint(api)["webhookEndpoint"]
    make_issue(api)
    [event] = all_events(api, types=["issue.created"])

    again = api.ok(REDELIVER, {"input": {"endpointId": endpoint["id"], "eventId": event["id"]}})

    delivery = again["redeliverWebhookEvent"]["delivery"]
    assert delivery["eventId"] == event["id"] and delivery["event"]["id"] == event["id"]
    assert delivery["event"]["sequence"] == event["sequence"]


def test_redelivering_an_unknown_event_is_not_found(api: GraphQLClient) -> None:
    endpoint = new_endpoint(api)["webhookEndpoint"]

    answer = api.ok(
        REDELIVER,
        {"input": {"endpointId": endpoint["id"], "eventId": "evt_01M857CFJY04F9N7N0DSDD98C7"}},
    )

    assert answer["redeliverWebhookEvent"]["error"]["code"] == "NOT_FOUND"


def test_replay_queues_the_subscribed_events_of_the_range(api: GraphQLClient) -> None:
    endpoint = new_endpoint(api, eventTypes=["issue.created"])["webhookEndpoint"]
    start = last_sequence(api)
    make_issue(api, "One")  # contact.created + issue.created
    make_issue(api, "Two")

    replayed = api.ok(
        REPLAY,
        {"input": {"endpointId": endpoint["id"], "fromSequence": start + 1, "toSequence": 10**6}},
    )
    counted = api.ok(
        REPLAY,
        {
            "input": {
                "endpointId": endpoint["id"],
                "fromSequence": start + 1,
                "toSequence": start + 3,
            }
        },
    )

    assert replayed["replayWebhookEvents"]["error"]["fields"] == [
        {"field": "toSequence", "code": "INVALID"}
    ]
    assert counted["replayWebhookEvents"] == {"count": 2, "error": None}


def test_another_workspace_s_endpoint_is_not_found(
    api: GraphQLClient, workspace: WorkspaceFixture
) -> None:
    endpoint = new_endpoint(api)["webhookEndpoint"]
    stranger = make_workspace(workspace.server).client()

    answers = [
        stranger.ok(UPDATE, {"input": {"id": endpoint["id"], "enabled": False}}),
        stranger.ok(DELETE, {"id": endpoint["id"]}),
        stranger.ok(SEND_TEST, {"id": endpoint["id"]}),
    ]

    assert [next(iter(a.values()))["error"]["code"] for a in answers] == ["NOT_FOUND"] * 3
    assert api.ok(LIST)["webhookEndpoints"]["edges"][0]["node"]["enabled"] is True


def test_an_unknown_delivery_status_filter_is_bad_input(api: GraphQLClient) -> None:
    new_endpoint(api)

    answer = api(DELIVERIES, {"status": "lost"})

    assert answer.codes == ["BAD_USER_INPUT"]


def test_replay_is_refused_while_the_endpoint_is_backed_up(
    api: GraphQLClient, workspace: WorkspaceFixture
) -> None:
    endpoint = new_endpoint(api, eventTypes=["issue.created"])["webhookEndpoint"]
    start = last_sequence(api)
    make_issue(api, "One")
    replay = {
        "input": {"endpointId": endpoint["id"], "fromSequence": start + 1, "toSequence": start + 2}
    }
    assert api.ok(REPLAY, replay)["replayWebhookEvents"] == {"count": 1, "error": None}
    # As thousands of replays would leave it, towards a receiver that does not keep up (the
    # shared test server delivers nothing).
    _queue_waiting(workspace, endpoint["id"], MAX_WAITING_FOR_REPLAY)

    refused = api.ok(REPLAY, replay)["replayWebhookEvents"]

    assert refused["count"] is None
    assert refused["error"]["code"] == "LIMIT_REACHED"


def _queue_waiting(workspace: WorkspaceFixture, endpoint_id: str, count: int) -> None:
    server = workspace.server
    moment = datetime.now(UTC)

    async def queue() -> None:
        async with server.db.transaction() as connection:
            event_id = await connection.scalar(
                select(events.c.id).where(events.c.workspace_id == workspace.id).limit(1)
            )
            await connection.execute(
                insert(webhook_deliveries),
                [
                    {
                        "workspace_id": workspace.id,
                        "id": new_id("WebhookDelivery", moment),
                        "endpoint_id": endpoint_id,
                        "event_id": event_id,
                        "event_type": "issue.created",
                        "status": "pending",
                        "attempts": 0,
                        "next_attempt_at": moment,
                        "created_at": moment,
                    }
                    for _ in range(count)
                ],
            )

    server.call(queue())
