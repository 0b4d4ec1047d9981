"""A cursor is taken only by the list that gave it out: one from another list is refused
with BAD_USER_INPUT, on the compiled path and the executor's alike, instead of reading
from the start or answering an empty page."""

from __future__ import annotations

from tests.client import GraphQLClient
from tests.conftest import WorkspaceFixture
from tests.graphql.issues.helpers import new_issue, reply

ISSUES = "query($after: String) { issues(first: 1, after: $after) { edges { cursor } } }"
MESSAGES = """query($id: ID!, $after: String) {
  issue(id: $id) { messages(first: 1, after: $after) { edges { cursor } } }
}"""
LABELS = "query($after: String) { labels(first: 1, after: $after) { edges { cursor } } }"
EVENTS = "query($after: String) { events(first: 1, after: $after) { edges { cursor } } }"


def _first_cursor(api: GraphQLClient, query: str, **variables: str) -> str:
    data = api.ok(query, {**variables, "after": None})
    connection = next(iter(data.values()))
    if "messages" in connection:
        connection = connection["messages"]
    cursor: str = connection["edges"][0]["cursor"]
    return cursor


def test_a_cursor_of_one_list_is_refused_by_another(workspace: WorkspaceFixture) -> None:
    api = workspace.client()
    issue_id = new_issue(api)["id"]
    new_issue(api, subject="Another")
    assert reply(api, issue_id, "On it")["error"] is None
    api.ok('mutation { createLabel(input: {name: "billing"}) { error { code } } }')
    cursors = {
        "issues": _first_cursor(api, ISSUES),
        "messages": _first_cursor(api, MESSAGES, id=issue_id),
        "labels": _first_cursor(api, LABELS),
        "events": _first_cursor(api, EVENTS),
    }

    wrong = [
        api(MESSAGES, {"id": issue_id, "after": cursors["issues"]}),
        api(ISSUES, {"after": cursors["messages"]}),
        api(ISSUES, {"after": cursors["events"]}),
        api(LABELS, {"after": cursors["issues"]}),
        api(EVENTS, {"after": cursors["labels"]}),
    ]
    right = [
        api(MESSAGES, {"id": issue_id, "after": cursors["messages"]}),
        api(ISSUES, {"after": cursors["issues"]}),
        api(EVENTS, {"after": cursors["events"]}),
    ]

    assert [answer.codes for answer in wrong] == [["BAD_USER_INPUT"]] * len(wrong)
    assert all("cursor" in answer.errors[0]["message"] for answer in wrong)
    assert [answer.errors for answer in right] == [[]] * len(right)
