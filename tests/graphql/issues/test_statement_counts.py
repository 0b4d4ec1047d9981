"""The number of SQL statements per request does not grow with page sizes or list lengths."""

from __future__ import annotations

from tests.client import GraphQLClient
from tests.conftest import WorkspaceFixture
from tests.graphql.issues.helpers import new_issue, reply

ONE_ISSUE = """
query($id: ID!, $first: Int!) {
  issue(id: $id) {
    subject status
    messages(first: $first) { totalCount edges { node { senderName body createdAt } } }
  }
}
"""
MANY_ISSUES = """
query($first: Int!, $messages: Int!) {
  issues(first: $first) {
    edges { node { subject requester { email }
      messages(first: $messages) { edges { node { body } } } } }
  }
}
"""


def statements_for(
    workspace: WorkspaceFixture, api: GraphQLClient, query: str, variables: dict[str, object]
) -> int:
    counter = workspace.server.statements
    api.ok(query, variables)  # warm: the last-used write of the key happens once a minute
    counter.reset()
    api.ok(query, variables)
    return counter.count


def test_one_issue_costs_the_same_with_1_or_100_messages(workspace: WorkspaceFixture) -> None:
    api = workspace.client()
    issue_id = new_issue(api)["id"]
    for index in range(3):
        reply(api, issue_id, f"reply {index}")

    small = statements_for(workspace, api, ONE_ISSUE, {"id": issue_id, "first": 1})
    large = statements_for(workspace, api, ONE_ISSUE, {"id": issue_id, "first": 100})

    assert small == large
    assert large <= 3  # key lookup, the issue, its messages


def test_a_list_of_issues_with_their_threads_costs_the_same_for_2_or_50(
    workspace: WorkspaceFixture,
) -> None:
    api = workspace.client()
    for index in range(50):
        issue_id = new_issue(api, requesterEmail=f"p{index}@example.com")["id"]
        if index % 10 == 0:
            reply(api, issue_id, "a reply")

    short = statements_for(workspace, api, MANY_ISSUES, {"first": 2, "messages": 1})
    long = statements_for(workspace, api, MANY_ISSUES, {"first": 50, "messages": 20})

    assert short == long
    assert long <= 4  # key lookup, issues, their messages, their requesters


POLL = """
query($first: Int!, $after: String) {
  issues(first: $first, after: $after, orderBy: UPDATED_AT_ASC,
         filter: {updatedAfter: "2000-01-01T00:00:00.000Z"}) {
    totalCount edges { node { subject updatedAt requester { email } } }
    pageInfo { endCursor }
  }
}
"""


def test_a_poll_by_update_time_costs_the_same_for_2_or_50(workspace: WorkspaceFixture) -> None:
    api = workspace.client()
    for index in range(60):
        new_issue(api, requesterEmail=f"p{index}@example.com")
    cursor = api.ok(POLL, {"first": 5})["issues"]["pageInfo"]["endCursor"]

    short = statements_for(workspace, api, POLL, {"first": 2, "after": cursor})
    long = statements_for(workspace, api, POLL, {"first": 50, "after": cursor})

    assert short == long
    assert long <= 4  # key lookup, issues, their requesters, the count


SEARCH = """
query($first: Int!, $after: String) {
  issues(first: $first, after: $after, filter: {query: "printer", status: ["new"]}) {
    totalCount edges { node { subject requester { email } } } pageInfo { endCursor }
  }
}
"""


def test_a_search_costs_the_same_for_2_or_100(workspace: WorkspaceFixture) -> None:
    api = workspace.client()
    for index in range(110):
        new_issue(api, requesterEmail=f"p{index}@example.com", body=f"Printer {index} jams.")
    cursor = api.ok(SEARCH, {"first": 5})["issues"]["pageInfo"]["endCursor"]

    short = statements_for(workspace, api, SEARCH, {"first": 2, "after": cursor})
    long = statements_for(workspace, api, SEARCH, {"first": 100, "after": cursor})

    assert short == long
    assert long <= 4  # key lookup, the matches, their requesters, the count
