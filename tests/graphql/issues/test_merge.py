"""mergeIssue (CONTRACT section 12): a duplicate's thread joins the target's in time order;
the source is closed, points at the target, keeps answering, and refuses every change."""

from __future__ import annotations

from typing import Any

from tests.client import GraphQLClient
from tests.conftest import WorkspaceFixture
from tests.graphql.events.helpers import events_after, last_sequence, types_of
from tests.graphql.issues.helpers import add_note, new_issue, reply, update
from tests.graphql.labels.helpers import add_labels, new_label

MERGE = """
mutation($input: MergeIssueInput!) {
  mergeIssue(input: $input) {
    issue { id status messageCount }
    source { id status messageCount mergedInto { id } }
    error { code message fields { field code } }
  }
}
"""
THREAD = """
query($id: ID!) { issue(id: $id) { messageCount mergedInto { id }
  messages(first: 20) { totalCount edges { node { body } } } } }
"""


def merge(api: GraphQLClient, source: str, target: str) -> dict[str, Any]:
    payload: dict[str, Any] = api.ok(MERGE, {"input": {"sourceId": source, "targetId": target}})[
        "mergeIssue"
    ]
    return payload


def bodies(api: GraphQLClient, issue_id: str) -> list[str]:
    edges = api.ok(THREAD, {"id": issue_id})["issue"]["messages"]["edges"]
    return [edge["node"]["body"] for edge in edges]


def test_the_threads_join_in_time_order_and_the_source_closes(
    workspace: WorkspaceFixture,
) -> None:
    api = workspace.client()
    target = new_issue(api, body="t1")["id"]
    source = new_issue(api, body="s1")["id"]
    reply(api, target, "t2")
    reply(api, source, "s2")

    payload = merge(api, source, target)

    assert payload["error"] is None
    assert payload["issue"] == {"id": target, "status": "new", "messageCount": 4}
    assert payload["source"] == {
        "id": source,
        "status": "closed",
        "messageCount": 0,
        "mergedInto": {"id": target},
    }
    assert bodies(api, target) == ["t1", "s1", "t2", "s2"]
    assert bodies(api, source) == []
    number = api.ok(
        "query($n: Int!) { issueByNumber(ticketNumber: $n) { id mergedInto { id } } }", {"n": 2}
    )
    assert number["issueByNumber"] == {"id": source, "mergedInto": {"id": target}}


def test_the_source_refuses_every_later_change(workspace: WorkspaceFixture) -> None:
    api = workspace.client()
    target, source = new_issue(api)["id"], new_issue(api)["id"]
    label = new_label(api, "Bug")["id"]
    merge(api, source, target)

    refusals = [
        update(api, source, priority="high")["error"],
        reply(api, source, "hello?")["error"],
        add_note(api, source, "note")["error"],
        add_labels(api, source, label)["error"],
        merge(api, source, target)["error"],
        merge(api, target, source)["error"],
        api.ok(
            'mutation($ids: [ID!]!) { updateIssues(input: {ids: $ids, priority: "low"}) '
            "{ error { code fields { field code } } } }",
            {"ids": [source, target]},
        )["updateIssues"]["error"],
    ]

    assert [error["code"] for error in refusals] == ["ISSUE_MERGED"] * len(refusals)
    assert refusals[-1]["fields"] == [{"field": source, "code": "ISSUE_MERGED"}]


def test_merging_into_itself_a_closed_or_a_missing_issue_is_refused(
    workspace: WorkspaceFixture, other_workspace: WorkspaceFixture
) -> None:
    api = workspace.client()
    first, second = new_issue(api)["id"], new_issue(api)["id"]
    done = new_issue(api)["id"]
    update(api, done, status="solved")
    update(api, done, status="closed")
    foreign = new_issue(other_workspace.client())["id"]

    itself = merge(api, first, first)["error"]
    into_closed = merge(api, first, done)["error"]
    from_closed = merge(api, done, first)["error"]
    missing = merge(api, first, foreign)["error"]

    assert (itself["code"], itself["fields"]) == (
        "VALIDATION_FAILED",
        [{"field": "targetId", "code": "INVALID"}],
    )
    assert into_closed["code"] == "ISSUE_CLOSED"
    assert from_closed["code"] == "ISSUE_CLOSED"
    assert missing["code"] == "NOT_FOUND"
    assert bodies(api, second) == ["It is on fire."]
    assert len(bodies(api, first)) == 1


def test_a_merge_records_issue_merged(workspace: WorkspaceFixture) -> None:
    api = workspace.client()
    target, source = new_issue(api)["id"], new_issue(api)["id"]
    since = last_sequence(api)

    merge(api, source, target)

    found = events_after(api, since)
    assert types_of(found) == ["issue.merged"]
    data = found[0]["data"]
    assert data["issue"]["id"] == source and data["issue"]["status"] == "closed"
    assert data["mergedInto"]["id"] == target and data["mergedInto"]["messageCount"] == 2
    assert data["movedMessages"] == 1


def test_a_read_only_key_cannot_merge(workspace: WorkspaceFixture) -> None:
    api = workspace.client()
    target, source = new_issue(api)["id"], new_issue(api)["id"]
    reader = api.with_key(workspace.create_key(["issues:read"]))

    answer = reader(MERGE, {"input": {"sourceId": source, "targetId": target}})

    assert answer.codes == ["FORBIDDEN"]
    assert answer.errors[0]["extensions"]["requiredScopes"] == ["issues:write"]
