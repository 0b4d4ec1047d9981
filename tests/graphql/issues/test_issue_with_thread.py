"""`issue` with the page of its thread the query asks for. Asked plainly or through a
fragment, the answer is compiled (one statement with the issue); under a directive, the
executor answers through its loaders: both answer the same."""

from __future__ import annotations

from typing import Any

import pytest

from tests.client import GraphQLClient
from tests.conftest import WorkspaceFixture
from tests.graphql.issues.helpers import new_issue, reply

THREAD = "totalCount edges { cursor node { id senderName body createdAt } } pageInfo { hasNextPage endCursor }"
PLAIN = f"""
query($id: ID!, $first: Int, $after: String) {{
  issue(id: $id) {{ id subject messageCount messages(first: $first, after: $after) {{ {THREAD} }} }}
}}
"""
THROUGH_FRAGMENT = f"""
query($id: ID!, $first: Int, $after: String) {{
  issue(id: $id) {{ id subject messageCount ...Thread }}
}}
fragment Thread on Issue {{ messages(first: $first, after: $after) {{ {THREAD} }} }}
"""
UNDER_DIRECTIVE = f"""
query($id: ID!, $first: Int, $after: String) {{
  issue(id: $id) {{
    id subject messageCount
    messages(first: $first, after: $after) @include(if: true) {{ {THREAD} }}
  }}
}}
"""


@pytest.fixture
def thread(workspace: WorkspaceFixture) -> tuple[GraphQLClient, str]:
    api = workspace.client()
    issue_id = new_issue(api)["id"]
    for index in range(4):
        reply(api, issue_id, f"reply {index}")
    return api, issue_id


def answers(api: GraphQLClient, variables: dict[str, Any]) -> list[dict[str, Any]]:
    """The answer to each query, without the errors' locations (the queries differ)."""
    bodies = [api(query, variables).body for query in (PLAIN, THROUGH_FRAGMENT, UNDER_DIRECTIVE)]
    for body in bodies:
        for error in body.get("errors", []):
            error.pop("locations", None)
    return bodies


@pytest.mark.parametrize("first", [None, 0, 2, 5, 100])
def test_both_paths_answer_the_same_page(thread: tuple[GraphQLClient, str], first: int) -> None:
    api, issue_id = thread

    plain, *others = answers(api, {"id": issue_id, "first": first})

    assert all(other == plain for other in others)
    messages = plain["data"]["issue"]["messages"]
    assert messages["totalCount"] == 5
    assert len(messages["edges"]) == (5 if first is None else min(first, 5))
    assert messages["pageInfo"]["hasNextPage"] == (first is not None and first < 5)


def test_both_paths_answer_the_same_page_after_a_cursor(thread: tuple[GraphQLClient, str]) -> None:
    api, issue_id = thread
    first_page = api.ok(PLAIN, {"id": issue_id, "first": 2})["issue"]["messages"]

    plain, *others = answers(
        api, {"id": issue_id, "first": 2, "after": first_page["pageInfo"]["endCursor"]}
    )

    assert all(other == plain for other in others)
    bodies = [edge["node"]["body"] for edge in plain["data"]["issue"]["messages"]["edges"]]
    assert bodies == ["reply 1", "reply 2"]  # the first message is the issue's body


def test_an_issue_without_its_thread_page_is_still_found(thread: tuple[GraphQLClient, str]) -> None:
    api, issue_id = thread
    last = api.ok(PLAIN, {"id": issue_id, "first": 5})["issue"]["messages"]["pageInfo"]

    plain, *others = answers(api, {"id": issue_id, "first": 3, "after": last["endCursor"]})

    assert all(other == plain for other in others)
    assert plain["data"]["issue"]["subject"] == "Printer on fire"
    assert plain["data"]["issue"]["messages"]["edges"] == []


def test_an_unknown_issue_is_not_found_on_both_paths(
    workspace: WorkspaceFixture, other_workspace: WorkspaceFixture
) -> None:
    api = workspace.client()
    elsewhere = new_issue(other_workspace.client())["id"]
    for issue_id in (elsewhere, "iss_01JJYSNJE08N2184V78KGKQ9EP", "not-an-id"):
        plain, *others = answers(api, {"id": issue_id, "first": 2})

        assert all(other == plain for other in others)
        assert plain["data"] == {"issue": None}
        assert [e["extensions"]["code"] for e in plain["errors"]] == ["NOT_FOUND"]


@pytest.mark.parametrize(
    "variables", [{"first": 101}, {"first": -1}, {"first": 2, "after": "not a cursor"}]
)
def test_a_bad_page_is_reported_by_the_messages_field(
    thread: tuple[GraphQLClient, str], variables: dict[str, Any]
) -> None:
    api, issue_id = thread

    plain, *others = answers(api, {"id": issue_id, **variables})

    assert all(other == plain for other in others)
    assert plain["data"]["issue"]["subject"] == "Printer on fire"
    assert plain["data"]["issue"]["messages"] is None
    assert [error["path"] for error in plain["errors"]] == [["issue", "messages"]]


def test_two_pages_of_one_thread_in_one_query(thread: tuple[GraphQLClient, str]) -> None:
    api, issue_id = thread
    query = """query($id: ID!) { issue(id: $id) {
      head: messages(first: 1) { edges { node { body } } }
      all: messages(first: 10) { edges { node { body } } }
    } }"""

    issue = api.ok(query, {"id": issue_id})["issue"]

    assert [edge["node"]["body"] for edge in issue["head"]["edges"]] == ["It is on fire."]
    assert len(issue["all"]["edges"]) == 5


def test_an_issue_with_its_thread_is_one_statement(
    workspace: WorkspaceFixture, thread: tuple[GraphQLClient, str]
) -> None:
    api, issue_id = thread
    counter = workspace.server.statements
    api.ok(PLAIN, {"id": issue_id, "first": 3})  # warm: the key's last-used write
    counter.reset()

    api.ok(PLAIN, {"id": issue_id, "first": 3})

    # The issue with its thread, on both backends, in one statement that also checks the
    # key (looked up by the first request).
    assert len(counter.of_requests()) == 1
