"""updateIssues (CONTRACT section 12): up to 100 issues change in one transaction, all or
none; a refusal names each issue that stops it, with its code."""

from __future__ import annotations

from typing import Any

from tests.client import GraphQLClient
from tests.conftest import WorkspaceFixture
from tests.graphql.events.helpers import events_after, last_sequence, types_of
from tests.graphql.issues.helpers import new_issue, update
from tests.graphql.labels.helpers import add_labels, new_label

UPDATE_ISSUES = """
mutation($input: UpdateIssuesInput!) {
  updateIssues(input: $input) {
    issues { id status priority labels { name } }
    error { code message fields { field code } }
  }
}
"""
STATUSES = "query($n: Int!) { issues(first: $n) { edges { node { id status } } } }"


def bulk(api: GraphQLClient, **values: Any) -> dict[str, Any]:
    payload: dict[str, Any] = api.ok(UPDATE_ISSUES, {"input": values})["updateIssues"]
    return payload


def many(api: GraphQLClient, count: int) -> list[str]:
    return [new_issue(api, subject=f"issue {n}")["id"] for n in range(count)]


def statuses(api: GraphQLClient) -> dict[str, str]:
    edges = api.ok(STATUSES, {"n": 100})["issues"]["edges"]
    return {edge["node"]["id"]: edge["node"]["status"] for edge in edges}


def closed(api: GraphQLClient, issue_id: str) -> None:
    update(api, issue_id, status="solved")
    assert update(api, issue_id, status="closed")["error"] is None


def test_100_issues_change_at_once_with_an_event_each(workspace: WorkspaceFixture) -> None:
    api = workspace.client()
    ids = many(api, 100)
    since = last_sequence(api)

    payload = bulk(api, ids=ids, status="pending", priority="high")

    assert payload["error"] is None
    assert [issue["id"] for issue in payload["issues"]] == ids
    assert {(i["status"], i["priority"]) for i in payload["issues"]} == {("pending", "high")}
    assert set(statuses(api).values()) == {"pending"}
    found = events_after(api, since)
    assert types_of(found) == ["issue.updated"] * 100
    assert {e["data"]["issue"]["id"] for e in found} == set(ids)
    assert found[0]["data"]["changes"]["status"] == {"from": "new", "to": "pending"}


def test_one_closed_issue_among_100_changes_nothing_and_is_named(
    workspace: WorkspaceFixture,
) -> None:
    api = workspace.client()
    ids = many(api, 100)
    closed(api, ids[57])
    before = statuses(api)
    since = last_sequence(api)

    payload = bulk(api, ids=ids, status="pending")

    assert payload["issues"] is None
    assert payload["error"]["code"] == "ISSUE_CLOSED"
    assert payload["error"]["fields"] == [{"field": ids[57], "code": "ISSUE_CLOSED"}]
    assert statuses(api) == before
    assert events_after(api, since) == []


def test_every_failing_id_is_named_with_its_own_code(
    workspace: WorkspaceFixture, other_workspace: WorkspaceFixture
) -> None:
    api = workspace.client()
    ids = many(api, 3)
    closed(api, ids[1])
    foreign = new_issue(other_workspace.client())["id"]

    payload = bulk(api, ids=[*ids, foreign, "not-an-id"], status="new")

    assert payload["error"]["code"] == "VALIDATION_FAILED"
    assert payload["error"]["fields"] == [
        {"field": ids[1], "code": "ISSUE_CLOSED"},
        {"field": foreign, "code": "NOT_FOUND"},
        {"field": "not-an-id", "code": "NOT_FOUND"},
    ]
    # `new` cannot be returned to: the others fail too, each for its own reason.
    moved = bulk(api, ids=[ids[0], ids[2]], status="open")
    back = bulk(api, ids=[ids[0], ids[2]], status="new")
    assert moved["error"] is None
    assert back["error"]["code"] == "INVALID_STATUS_TRANSITION"
    assert [f["code"] for f in back["error"]["fields"]] == ["INVALID_STATUS_TRANSITION"] * 2


def test_the_input_is_checked_first(workspace: WorkspaceFixture) -> None:
    api = workspace.client()
    ids = many(api, 1)

    cases = [
        ({"ids": []}, [{"field": "ids", "code": "REQUIRED"}]),
        ({"ids": [f"iss_{n}" for n in range(101)]}, [{"field": "ids", "code": "INVALID"}]),
        ({"ids": ids * 101}, [{"field": "ids", "code": "INVALID"}]),  # repeats count
        ({"ids": ids, "status": "done"}, [{"field": "status", "code": "INVALID"}]),
        (
            {"ids": ids, "addLabelIds": ["lbl_unknown"]},
            [{"field": "addLabelIds", "code": "UNKNOWN"}],
        ),
    ]
    for values, fields in cases:
        payload = bulk(api, **values)
        assert payload["error"]["code"] == "VALIDATION_FAILED", values
        assert payload["error"]["fields"] == fields, values


def test_labels_go_on_and_off_many_issues_within_the_limit(workspace: WorkspaceFixture) -> None:
    api = workspace.client()
    ids = many(api, 3)
    bug, vip = new_label(api, "Bug")["id"], new_label(api, "VIP")["id"]
    add_labels(api, ids[0], bug)
    fillers = [new_label(api, f"Filler {n:02}")["id"] for n in range(20)]
    add_labels(api, ids[2], *fillers)

    full = bulk(api, ids=ids, addLabelIds=[vip])
    payload = bulk(api, ids=ids[:2], addLabelIds=[vip], removeLabelIds=[bug])

    assert full["error"]["code"] == "LIMIT_REACHED"
    assert full["error"]["fields"] == [{"field": ids[2], "code": "LIMIT_REACHED"}]
    assert payload["error"] is None
    assert [[label["name"] for label in i["labels"]] for i in payload["issues"]] == [
        ["VIP"],
        ["VIP"],
    ]


def test_an_issue_already_as_asked_is_left_alone(workspace: WorkspaceFixture) -> None:
    api = workspace.client()
    ids = many(api, 2)
    bulk(api, ids=[ids[0]], priority="urgent")
    since = last_sequence(api)

    payload = bulk(api, ids=ids, priority="urgent")

    assert payload["error"] is None
    assert types_of(events_after(api, since)) == ["issue.updated"]


def test_a_read_only_key_changes_nothing(workspace: WorkspaceFixture) -> None:
    api = workspace.client()
    ids = many(api, 1)
    reader = api.with_key(workspace.create_key(["issues:read"]))

    answer = reader(UPDATE_ISSUES, {"input": {"ids": ids, "status": "open"}})

    assert answer.codes == ["FORBIDDEN"]
    assert answer.errors[0]["extensions"]["requiredScopes"] == ["issues:write"]


def test_the_statements_of_a_bulk_change_do_not_grow_with_it(workspace: WorkspaceFixture) -> None:
    api = workspace.client()
    ids = many(api, 60)
    label = new_label(api, "Bug")["id"]
    counter = workspace.server.statements

    def statements(chosen: list[str], status: str) -> int:
        counter.reset()
        assert bulk(api, ids=chosen, status=status, addLabelIds=[label])["error"] is None
        return counter.count

    assert statements(ids[:2], "open") == statements(ids[2:], "open")


def test_taking_labels_off_many_issues_costs_the_same_for_2_or_58(
    workspace: WorkspaceFixture,
) -> None:
    api = workspace.client()
    ids = many(api, 60)
    bug = new_label(api, "Bug")["id"]
    assert bulk(api, ids=ids, addLabelIds=[bug])["error"] is None
    counter = workspace.server.statements

    def statements(chosen: list[str]) -> int:
        counter.reset()
        payload = bulk(api, ids=chosen, removeLabelIds=[bug])
        assert payload["error"] is None
        assert all(issue["labels"] == [] for issue in payload["issues"])
        return counter.count

    assert statements(ids[:2]) == statements(ids[2:])
