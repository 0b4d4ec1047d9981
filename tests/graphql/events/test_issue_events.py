"""Issue mutations record their events in their own transaction (CONTRACT section 11)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from tests.client import GraphQLClient
from tests.conftest import WorkspaceFixture
from tests.graphql.events.helpers import events_after, last_sequence, types_of
from tests.graphql.issues.helpers import CREATE, REPLY, UPDATE

ISSUE = {
    "subject": "Printer on fire",
    "body": "It is on fire.",
    "requesterEmail": "moss@example.com",
    "requesterName": "Maurice Moss",
}


def create(api: GraphQLClient, **overrides: object) -> dict[str, object]:
    payload = api.ok(CREATE, {"input": {**ISSUE, **overrides}})["createIssue"]
    assert payload["error"] is None, payload
    return payload["issue"]


def test_create_issue_records_the_new_requester_then_the_issue(
    workspace: WorkspaceFixture, api: GraphQLClient
) -> None:
    start = last_sequence(api)

    issue = create(api)

    contact_created, issue_created = events_after(api, start)
    assert [contact_created["sequence"], issue_created["sequence"]] == [start + 1, start + 2]
    assert contact_created["type"] == "contact.created"
    assert contact_created["data"]["contact"]["email"] == "moss@example.com"
    assert issue_created["type"] == "issue.created"
    data = issue_created["data"]
    assert data["issue"]["id"] == issue["id"]
    assert data["issue"]["ticketNumber"] == issue["ticketNumber"]
    assert data["issue"]["status"] == "new"
    assert data["issue"]["requester"] == {
        "id": contact_created["data"]["contact"]["id"],
        "email": "moss@example.com",
        "name": "Maurice Moss",
    }
    assert data["message"]["body"] == "It is on fire."
    assert data["message"]["visibility"] == "public"
    assert issue_created["workspaceId"] == workspace.id
    assert issue_created["apiVersion"] == "2026-11-01"
    assert issue_created["id"].startswith("evt_")
    assert issue_created["actor"]["type"] == "machine_user"
    assert issue_created["actor"]["id"].startswith("mu_")


def test_a_known_requester_gives_no_contact_event(api: GraphQLClient) -> None:
    create(api)
    start = last_sequence(api)

    create(api, subject="Again")

    assert types_of(events_after(api, start)) == ["issue.created"]


def test_update_records_what_changed_and_nothing_when_nothing_did(api: GraphQLClient) -> None:
    issue = create(api)
    start = last_sequence(api)

    api.ok(UPDATE, {"input": {"id": issue["id"], "status": "open", "priority": "normal"}})
    api.ok(UPDATE, {"input": {"id": issue["id"], "status": "open"}})

    [updated] = events_after(api, start)
    assert updated["type"] == "issue.updated"
    assert updated["data"]["changes"] == {"status": {"from": "new", "to": "open"}}
    assert updated["data"]["issue"]["status"] == "open"


def test_a_reply_that_moves_the_status_gives_two_events_in_order(api: GraphQLClient) -> None:
    issue = create(api)
    start = last_sequence(api)

    payload = api.ok(
        REPLY, {"input": {"issueId": issue["id"], "body": "On it", "status": "pending"}}
    )

    message, updated = events_after(api, start)
    assert message["type"] == "message.created"
    assert message["data"]["message"]["id"] == payload["replyToIssue"]["message"]["id"]
    assert updated["type"] == "issue.updated"
    assert updated["sequence"] == message["sequence"] + 1
    assert updated["data"]["changes"] == {"status": {"from": "new", "to": "pending"}}


def test_a_refused_mutation_records_nothing(api: GraphQLClient) -> None:
    issue = create(api)
    for status in ("solved", "closed"):
        api.ok(UPDATE, {"input": {"id": issue["id"], "status": status}})
    start = last_sequence(api)

    refused = api.ok(REPLY, {"input": {"issueId": issue["id"], "body": "Too late"}})
    invalid = api.ok(CREATE, {"input": {**ISSUE, "requesterEmail": "not an address"}})

    assert refused["replyToIssue"]["error"]["code"] == "ISSUE_CLOSED"
    assert invalid["createIssue"]["error"]["code"] == "VALIDATION_FAILED"
    assert events_after(api, start) == []


def test_an_idempotent_replay_records_nothing_new(api: GraphQLClient) -> None:
    create(api, idempotencyKey="retry-1")
    start = last_sequence(api)

    create(api, idempotencyKey="retry-1")

    assert events_after(api, start) == []


def test_sequences_are_gap_free_under_concurrent_writes(api: GraphQLClient) -> None:
    create(api)  # the requester exists: each write below records exactly one event
    start = last_sequence(api)

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda n: create(api, subject=f"Concurrent {n}"), range(40)))

    found = events_after(api, start)
    assert [event["sequence"] for event in found] == list(range(start + 1, start + 41))
    assert types_of(found) == ["issue.created"] * 40
