"""An endpoint hands its events to whoever holds its URL: a key may set one up, point it
elsewhere, widen it or resend to it only within the event types it may read itself."""

from __future__ import annotations

from typing import Any

from tests.client import GraphQLClient
from tests.conftest import WorkspaceFixture
from tests.graphql.events.helpers import all_events
from tests.graphql.webhooks.helpers import (
    LIST,
    RECEIVER,
    REDELIVER,
    REPLAY,
    UPDATE,
    create_payload,
    new_endpoint,
)

ISSUE_TYPES = ["issue.created", "message.created"]


def webhooks_and_issues(workspace: WorkspaceFixture) -> GraphQLClient:
    return workspace.client(workspace.create_key(["webhooks:manage", "issues:read"]))


def refused(payload: dict[str, Any], *needed: str) -> None:
    assert payload["error"]["code"] == "SCOPE_ESCALATION", payload
    assert payload["error"]["fields"] == [{"field": "eventTypes", "code": "INVALID"}]
    for scope in needed:
        assert scope in payload["error"]["message"]


def test_an_endpoint_takes_only_types_the_key_may_read(workspace: WorkspaceFixture) -> None:
    api = webhooks_and_issues(workspace)

    made = create_payload(api, eventTypes=ISSUE_TYPES)
    every_type = create_payload(api)
    keys_too = create_payload(api, eventTypes=["issue.created", "api_key.created"])

    assert made["error"] is None and made["webhookEndpoint"]["eventTypes"] == ISSUE_TYPES
    refused(every_type, "api_keys:manage", "contacts:read", "members:read")
    refused(keys_too, "api_keys:manage")
    assert "issues:read" not in keys_too["error"]["message"]
    assert every_type["secret"] is None and keys_too["secret"] is None
    assert api.ok(LIST)["webhookEndpoints"]["totalCount"] == 1


def test_a_key_may_not_widen_or_repoint_an_endpoint_beyond_what_it_reads(
    workspace: WorkspaceFixture,
) -> None:
    full = workspace.client()
    everything = new_endpoint(full)["webhookEndpoint"]
    issues = new_endpoint(full, eventTypes=ISSUE_TYPES)["webhookEndpoint"]
    api = webhooks_and_issues(workspace)

    def update(**values: Any) -> dict[str, Any]:
        answer = api.ok(UPDATE, {"input": values})["updateWebhookEndpoint"]
        assert isinstance(answer, dict)
        return answer

    repointed = update(id=everything["id"], url="https://93.184.215.15/mine")
    widened = update(id=issues["id"], eventTypes=[*ISSUE_TYPES, "contact.created"])
    switched_off = update(id=everything["id"], enabled=False)
    narrowed = update(id=everything["id"], eventTypes=["issue.created"])
    moved = update(id=issues["id"], url="https://93.184.215.15/mine")

    refused(repointed, "api_keys:manage")
    refused(widened, "contacts:read")
    assert switched_off["error"] is None and switched_off["webhookEndpoint"]["enabled"] is False
    assert narrowed["error"] is None
    assert moved["error"] is None and moved["webhookEndpoint"]["url"].endswith("/mine")
    listed = {
        edge["node"]["id"]: edge["node"] for edge in full.ok(LIST)["webhookEndpoints"]["edges"]
    }
    assert listed[everything["id"]]["url"] == RECEIVER
    assert listed[issues["id"]]["eventTypes"] == ISSUE_TYPES


def test_events_are_resent_only_when_the_key_may_read_them(workspace: WorkspaceFixture) -> None:
    full = workspace.client()
    everything = new_endpoint(full)["webhookEndpoint"]
    issues = new_endpoint(full, eventTypes=ISSUE_TYPES)["webhookEndpoint"]
    workspace.create_key(["issues:read"], name="an api_key.created event")
    [key_event] = all_events(full, types=["api_key.created"])[-1:]
    [endpoint_event] = all_events(full, types=["webhook_endpoint.created"])[-1:]
    api = webhooks_and_issues(workspace)

    def redeliver(endpoint: dict[str, Any], event: dict[str, Any]) -> dict[str, Any]:
        values = {"endpointId": endpoint["id"], "eventId": event["id"]}
        answer = api.ok(REDELIVER, {"input": values})["redeliverWebhookEvent"]
        assert isinstance(answer, dict)
        return answer

    def replay(endpoint: dict[str, Any]) -> dict[str, Any]:
        values = {"endpointId": endpoint["id"], "fromSequence": 1, "toSequence": 100}
        answer = api.ok(REPLAY, {"input": values})["replayWebhookEvents"]
        assert isinstance(answer, dict)
        return answer

    refused(redeliver(issues, key_event), "api_keys:manage")
    resent = redeliver(issues, endpoint_event)
    refused(replay(everything), "api_keys:manage")
    replayed = replay(issues)

    assert resent["error"] is None  # webhooks:manage reads webhook_endpoint.* events
    assert replayed["error"] is None and replayed["count"] == 0  # no issue events yet
    assert (
        full.ok(
            REPLAY,
            {"input": {"endpointId": everything["id"], "fromSequence": 1, "toSequence": 100}},
        )["replayWebhookEvents"]["count"]
        > 0
    )


CREATE_CONTACT = """mutation($input: CreateContactInput!) {
  createContact(input: $input) { contact { id } error { code } } }"""
CREATE_ISSUE = """mutation($input: CreateIssueInput!) {
  createIssue(input: $input) { issue { id } error { code } } }"""
DELIVERED = """query($id: ID!) { node(id: $id) { ... on WebhookEndpoint {
  deliveries(first: 10) { edges { node { eventType event { id type } } } } } } }"""


def test_a_new_url_also_needs_the_types_of_deliveries_still_waiting(
    workspace: WorkspaceFixture,
) -> None:
    full = workspace.client()
    api = webhooks_and_issues(workspace)  # its api_key.created comes before the endpoint
    endpoint = new_endpoint(full)["webhookEndpoint"]
    # The shared test servers send nothing: this delivery stays pending.
    full.ok(CREATE_CONTACT, {"input": {"email": "waiting@example.com"}})

    def update(**values: Any) -> dict[str, Any]:
        answer = api.ok(UPDATE, {"input": {"id": endpoint["id"], **values}})
        payload: dict[str, Any] = answer["updateWebhookEndpoint"]
        return payload

    narrowed = update(eventTypes=["issue.created"])
    repointed = update(url="https://93.184.215.15/mine")
    widened = update(eventTypes=[])

    assert narrowed["error"] is None  # narrowing needs no more than webhooks:manage
    refused(repointed, "contacts:read")  # the pending contact.created would follow the URL
    assert "api_keys:manage" not in repointed["error"]["message"]
    refused(widened, "api_keys:manage", "contacts:read")
    [listed] = [edge["node"] for edge in full.ok(LIST)["webhookEndpoints"]["edges"]]
    assert listed["url"] == RECEIVER and listed["eventTypes"] == ["issue.created"]


def test_a_delivery_shows_its_event_only_to_a_key_that_may_read_it(
    workspace: WorkspaceFixture,
) -> None:
    full = workspace.client()
    endpoint = new_endpoint(full, eventTypes=["contact.created", "issue.created"])
    endpoint_id = endpoint["webhookEndpoint"]["id"]
    issue = {"subject": "Hello", "body": "Hi", "requesterEmail": "known@example.com"}
    full.ok(CREATE_CONTACT, {"input": {"email": "known@example.com"}})
    full.ok(CREATE_ISSUE, {"input": issue})
    api = webhooks_and_issues(workspace)

    answer = api(DELIVERED, {"id": endpoint_id})

    edges = answer.data["node"]["deliveries"]["edges"]
    assert [edge["node"]["eventType"] for edge in edges] == ["issue.created", "contact.created"]
    assert edges[0]["node"]["event"]["type"] == "issue.created"
    assert edges[1]["node"]["event"] is None
    error = answer.error_at("node", "deliveries", "edges", 1, "node", "event")
    assert error["extensions"]["code"] == "FORBIDDEN"
    assert error["extensions"]["requiredScopes"] == ["contacts:read"]
    assert len(answer.errors) == 1
    assert all(
        edge["node"]["event"]
        for edge in full.ok(DELIVERED, {"id": endpoint_id})["node"]["deliveries"]["edges"]
    )
