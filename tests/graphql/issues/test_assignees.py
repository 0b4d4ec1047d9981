"""Assignees (CONTRACT section 12): an issue is given to a member or a machine user of its
workspace, or to nobody; issues are found by assignee; updateIssues assigns many at once."""

from __future__ import annotations

from typing import Any

from tests.client import GraphQLClient
from tests.conftest import WorkspaceFixture
from tests.graphql.events.helpers import events_after, last_sequence, types_of
from tests.graphql.issues.helpers import new_issue, update
from tests.graphql.labels.helpers import add_labels, new_label
from tests.graphql.members.helpers import (
    ASSIGN_ISSUE,
    ASSIGNEE,
    assign,
    assigned_ids,
    new_member,
)

UPDATE_ISSUES = f"""
mutation($input: UpdateIssuesInput!) {{
  updateIssues(input: $input) {{
    issues {{ id status {ASSIGNEE} }}
    error {{ code fields {{ field code }} }}
  }}
}}
"""


def machine_user_id(api: GraphQLClient) -> str:
    user_id: str = api.ok("{ apiInfo }")["apiInfo"]["machineUser"]["id"]
    return user_id


def bulk(api: GraphQLClient, **values: Any) -> dict[str, Any]:
    payload: dict[str, Any] = api.ok(UPDATE_ISSUES, {"input": values})["updateIssues"]
    return payload


def test_an_issue_is_assigned_to_a_member_a_machine_user_or_nobody(
    workspace: WorkspaceFixture,
) -> None:
    api = workspace.client()
    agent = new_member(api, "roy@example.com", name="Roy")
    bot = machine_user_id(api)
    issue = new_issue(api)

    to_member = assign(api, issue["id"], agent["id"])["issue"]
    to_bot = assign(api, issue["id"], bot)["issue"]
    to_nobody = assign(api, issue["id"], None)["issue"]

    assert to_member["assignee"] == {
        "__typename": "Member",
        "id": agent["id"],
        "name": "Roy",
        "role": "agent",
    }
    assert to_bot["assignee"]["__typename"] == "MachineUser"
    assert to_bot["assignee"]["id"] == bot
    assert to_nobody["assignee"] is None
    assert to_member["updatedAt"] <= to_bot["updatedAt"] <= to_nobody["updatedAt"]


def test_assigning_records_issue_assigned_once_per_change(workspace: WorkspaceFixture) -> None:
    api = workspace.client()
    agent = new_member(api, "roy@example.com", name="Roy")
    issue = new_issue(api)
    since = last_sequence(api)

    assign(api, issue["id"], agent["id"])
    assign(api, issue["id"], agent["id"])  # no change, no event
    assign(api, issue["id"], None)
    found = events_after(api, since)

    assert types_of(found) == ["issue.assigned", "issue.assigned"]
    given, taken = (event["data"] for event in found)
    assert given["assignee"] == {"type": "member", "id": agent["id"], "name": "Roy"}
    assert given["previousAssignee"] is None
    assert given["issue"]["assignee"] == {"type": "member", "id": agent["id"]}
    assert taken["assignee"] is None
    assert taken["previousAssignee"] == {"type": "member", "id": agent["id"]}
    assert taken["issue"]["assignee"] is None


def test_anyone_but_a_member_or_machine_user_of_the_workspace_is_refused(
    workspace: WorkspaceFixture, other_workspace: WorkspaceFixture
) -> None:
    api = workspace.client()
    issue = new_issue(api)
    theirs = new_member(other_workspace.client(), "theirs@example.com")["id"]
    their_bot = machine_user_id(other_workspace.client())
    contact = api.ok("{ contacts(first: 1) { edges { node { id } } } }")["contacts"]["edges"][0][
        "node"
    ]["id"]

    refusals = [
        assign(api, issue["id"], candidate)
        for candidate in (theirs, their_bot, "mem_nonsense", contact, issue["id"])
    ]

    for payload in refusals:
        assert payload["issue"] is None
        assert payload["error"]["code"] == "VALIDATION_FAILED"
        assert payload["error"]["fields"] == [{"field": "assigneeId", "code": "UNKNOWN"}]
    assert assigned_ids(api, unassigned=True) == [issue["id"]]


def test_assign_issue_wants_an_assignee_or_null_and_an_open_issue(
    workspace: WorkspaceFixture, other_workspace: WorkspaceFixture
) -> None:
    api = workspace.client()
    agent = new_member(api, "roy@example.com")["id"]
    closed = new_issue(api)
    assert update(api, closed["id"], status="solved")["error"] is None
    assert update(api, closed["id"], status="closed")["error"] is None
    theirs = new_issue(other_workspace.client())

    missing = api.ok(
        "mutation($id: ID!) { assignIssue(input: {issueId: $id}) "
        "{ issue { id } error { code fields { field code } } } }",
        {"id": closed["id"]},
    )["assignIssue"]
    on_closed = assign(api, closed["id"], agent)
    on_theirs = assign(api, theirs["id"], agent)

    assert missing["error"] == {
        "code": "VALIDATION_FAILED",
        "fields": [{"field": "assigneeId", "code": "REQUIRED"}],
    }
    assert on_closed["error"]["code"] == "ISSUE_CLOSED"
    assert on_theirs["error"]["code"] == "NOT_FOUND"


def test_issues_are_found_by_assignee_or_by_having_none(workspace: WorkspaceFixture) -> None:
    api = workspace.client()
    roy, jen = (new_member(api, f"{name}@example.com")["id"] for name in ("roy", "jen"))
    bot = machine_user_id(api)
    first, second, third, fourth = (new_issue(api, subject=f"n{n}")["id"] for n in range(4))
    assign(api, first, roy)
    assign(api, second, roy)
    assign(api, third, bot)

    assert assigned_ids(api, assigneeId=roy) == [first, second]
    assert assigned_ids(api, assigneeId=bot) == [third]
    assert assigned_ids(api, assigneeId=jen) == []
    assert assigned_ids(api, unassigned=True) == [fourth]
    assert assigned_ids(api, unassigned=False) == [first, second, third]
    both = api(
        "query($a: ID!) { issues(filter: {assigneeId: $a, unassigned: true}) { totalCount } }",
        {"a": roy},
    )
    assert both.codes == ["BAD_USER_INPUT"]


def test_update_issues_assigns_all_or_none(workspace: WorkspaceFixture) -> None:
    api = workspace.client()
    agent = new_member(api, "roy@example.com")["id"]
    ids = [new_issue(api, subject=f"n{n}")["id"] for n in range(3)]
    assign(api, ids[0], agent)
    since = last_sequence(api)

    assigned = bulk(api, ids=ids, assigneeId=agent, status="open")
    unknown = bulk(api, ids=ids, assigneeId="mem_nonsense")
    kept = bulk(api, ids=ids, priority="high")
    unassigned = bulk(api, ids=ids[:2], assigneeId=None)

    assert assigned["error"] is None
    assert [issue["assignee"]["id"] for issue in assigned["issues"]] == [agent] * 3
    assert unknown["error"] == {
        "code": "VALIDATION_FAILED",
        "fields": [{"field": "assigneeId", "code": "UNKNOWN"}],
    }
    assert [issue["assignee"]["id"] for issue in kept["issues"]] == [agent] * 3
    assert [issue["assignee"] for issue in unassigned["issues"]] == [None, None]
    found = events_after(api, since)
    # Per issue, one event per kind of change: the first issue was already assigned.
    assert types_of(found).count("issue.assigned") == 2 + 2
    assert types_of(found).count("issue.updated") == 3 + 3
    assert assigned_ids(api, assigneeId=agent) == [ids[2]]


def test_a_read_only_key_reads_assignees_and_assigns_nobody(workspace: WorkspaceFixture) -> None:
    api = workspace.client()
    agent = new_member(api, "roy@example.com", name="Roy")["id"]
    issue = new_issue(api)["id"]
    assign(api, issue, agent)
    reader = api.with_key(
        workspace.create_key(
            ["accounts:read", "articles:read", "contacts:read", "issues:read", "members:read"]
        )
    )

    read = reader.ok(f"query($id: ID!) {{ issue(id: $id) {{ {ASSIGNEE} }} }}", {"id": issue})
    refused = reader(ASSIGN_ISSUE, {"input": {"issueId": issue, "assigneeId": None}})

    assert read["issue"]["assignee"]["name"] == "Roy"
    assert refused.codes == ["FORBIDDEN"]
    assert refused.errors[0]["extensions"]["requiredScopes"] == ["issues:write"]
    assert assigned_ids(api, assigneeId=agent) == [issue]


def test_100_issues_with_assignee_labels_and_requester_cost_what_1_does(
    workspace: WorkspaceFixture,
) -> None:
    api = workspace.client()
    agent = new_member(api, "roy@example.com")["id"]
    bot = machine_user_id(api)
    bug = new_label(api, "Bug")["id"]
    for index in range(100):
        issue_id = new_issue(api, subject=f"issue {index}")["id"]
        add_labels(api, issue_id, bug)
        assign(api, issue_id, agent if index % 2 else bot)
    query = f"""query($n: Int!) {{ issues(first: $n) {{ edges {{ node {{
        id labels {{ name }} requester {{ email }} {ASSIGNEE} }} }} }} }}"""
    counter = workspace.server.statements

    def statements(first: int) -> int:
        api.ok(query, {"n": first})
        counter.reset()
        answer = api.ok(query, {"n": first})["issues"]["edges"]
        assert all(edge["node"]["assignee"] is not None for edge in answer)
        return counter.count

    assert statements(1) == statements(100)
