"""`issues` reads the requesters with the list when the query asks for them plainly; asked
through a fragment or under a directive, each comes through the loader. Both answer the same."""

from __future__ import annotations

import time
from typing import Any

from tests.client import GraphQLClient
from tests.conftest import WorkspaceFixture
from tests.graphql.issues.helpers import new_issue

FIELDS = "id subject requester { id email name }"
PLAIN = f"query {{ issues(first: 10) {{ edges {{ node {{ {FIELDS} }} }} }} }}"
THROUGH_FRAGMENT = (
    "query { issues(first: 10) { edges { node { ...Row } } } }"
    f" fragment Row on Issue {{ {FIELDS} }}"
)
UNDER_DIRECTIVE = (
    "query { issues(first: 10) { edges { node {"
    " id subject requester @include(if: true) { id email name } } } } }"
)


def rows(api: GraphQLClient, query: str) -> list[dict[str, Any]]:
    return [edge["node"] for edge in api.ok(query)["issues"]["edges"]]


def test_both_paths_answer_the_same_requesters(workspace: WorkspaceFixture) -> None:
    api = workspace.client()
    for index in range(4):  # two requesters, two issues each
        new_issue(api, requesterEmail=f"asker{index % 2}@example.com", subject=f"issue {index}")

    plain = rows(api, PLAIN)

    assert rows(api, THROUGH_FRAGMENT) == plain
    assert rows(api, UNDER_DIRECTIVE) == plain
    assert [row["requester"]["email"] for row in plain] == [
        "asker0@example.com",
        "asker1@example.com",
    ] * 2


def test_the_list_with_its_requesters_is_two_statements_after_the_key_on_the_executor(
    workspace: WorkspaceFixture,
) -> None:
    api = workspace.client()
    for index in range(3):
        new_issue(api, requesterEmail=f"p{index}@example.com")
    counter = workspace.server.statements
    executor = {"extensions": {"compiled": False}}
    api.ok(PLAIN, **executor)  # warm: the key's last-used write
    counter.reset()

    api.ok(PLAIN, **executor)
    assert len(counter.of_requests()) == 3  # the key, the issues, their requesters

    counter.reset()
    api.ok(PLAIN)
    # Compiled, for a key this process has looked up: one statement for the root field,
    # which checks the key too.
    assert len(counter.of_requests()) == 1


def test_without_contacts_read_the_requesters_are_refused_and_not_read(
    workspace: WorkspaceFixture,
) -> None:
    new_issue(workspace.client())
    api = workspace.client(workspace.create_key(["issues:read"]))
    counter = workspace.server.statements
    counter.reset()
    api(PLAIN)
    # A new key's first use is recorded after the answer, in the background: wait for it.
    deadline = time.monotonic() + 10
    while not any(sql.startswith("UPDATE api_keys") for sql in counter.statements):
        assert time.monotonic() < deadline, counter.statements
        time.sleep(0.01)
    counter.reset()

    answer = api(PLAIN)

    assert {error["extensions"]["code"] for error in answer.errors} == {"FORBIDDEN"}
    assert all(edge["node"]["requester"] is None for edge in answer.data["issues"]["edges"])
    assert len(counter.of_requests()) == 2  # the key and the issues: no contacts
