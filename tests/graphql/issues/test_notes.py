"""Internal notes (CONTRACT section 12): a message the requester never sees, added with
`thread:reply`; every message says its visibility and its author."""

from __future__ import annotations

from typing import Any

import httpx

from tests.client import GraphQLClient
from tests.conftest import WorkspaceFixture
from tests.graphql.events.helpers import events_after, last_sequence, types_of
from tests.graphql.issues.helpers import ADD_NOTE, add_note, new_issue, reply, update

THREAD = """
query($id: ID!, $visibility: String) {
  issue(id: $id) {
    messages(first: 10, visibility: $visibility) {
      totalCount
      edges { node { body visibility author { __typename ... on Contact { email }
                                              ... on MachineUser { name } } } }
    }
  }
}
"""


def thread(api: GraphQLClient, issue_id: str, visibility: str | None = None) -> dict[str, Any]:
    found: dict[str, Any] = api.ok(THREAD, {"id": issue_id, "visibility": visibility})["issue"][
        "messages"
    ]
    return found


def test_a_note_is_an_internal_message_that_changes_no_status(
    workspace: WorkspaceFixture,
) -> None:
    api = workspace.client()
    issue = new_issue(api, body="Help!")
    update(api, issue["id"], status="pending")
    reply(api, issue["id"], "We are on it.")

    noted = add_note(api, issue["id"], "Customer is on the enterprise plan.")

    assert noted["error"] is None
    assert noted["message"]["visibility"] == "internal"
    assert noted["message"]["body"] == "Customer is on the enterprise plan."
    assert (noted["issue"]["status"], noted["issue"]["messageCount"]) == ("pending", 3)
    everything = thread(api, issue["id"])
    assert [(m["node"]["body"], m["node"]["visibility"]) for m in everything["edges"]] == [
        ("Help!", "public"),
        ("We are on it.", "public"),
        ("Customer is on the enterprise plan.", "internal"),
    ]
    assert everything["totalCount"] == 3


def test_messages_of_one_visibility_are_listed_and_counted(workspace: WorkspaceFixture) -> None:
    api = workspace.client()
    issue_id = new_issue(api, body="Help!")["id"]
    add_note(api, issue_id, "note 1")
    reply(api, issue_id, "reply")
    add_note(api, issue_id, "note 2")

    notes = thread(api, issue_id, "internal")
    public = thread(api, issue_id, "public")
    wrong = api(THREAD, {"id": issue_id, "visibility": "secret"})
    # Any case, as statuses are; the second read of a document is the compiled path's.
    shouted = [thread(api, issue_id, "INTERNAL") for _ in range(2)]

    assert [m["node"]["body"] for m in notes["edges"]] == ["note 1", "note 2"]
    assert notes["totalCount"] == 2
    assert [m["node"]["body"] for m in public["edges"]] == ["Help!", "reply"]
    assert public["totalCount"] == 2
    assert wrong.codes == ["BAD_USER_INPUT"]
    assert shouted == [notes, notes]


def test_each_message_names_its_author(workspace: WorkspaceFixture) -> None:
    api = workspace.client()
    issue_id = new_issue(api, requesterEmail="ada@example.com")["id"]
    add_note(api, issue_id, "a note")

    authors = [m["node"]["author"] for m in thread(api, issue_id)["edges"]]

    assert authors[0] == {"__typename": "Contact", "email": "ada@example.com"}
    assert authors[1]["__typename"] == "MachineUser"
    assert authors[1]["name"]


def test_a_note_is_refused_as_a_reply_would_be(workspace: WorkspaceFixture) -> None:
    api = workspace.client()
    issue_id = new_issue(api)["id"]

    empty = add_note(api, issue_id, "   ")
    unknown = add_note(api, "iss_01ZZZZZZZZZZZZZZZZZZZZZZZZ", "a note")
    update(api, issue_id, status="solved")
    update(api, issue_id, status="closed")
    closed = add_note(api, issue_id, "a note")

    assert empty["error"]["fields"] == [{"field": "body", "code": "REQUIRED"}]
    assert unknown["error"]["code"] == "NOT_FOUND"
    assert closed["error"]["code"] == "ISSUE_CLOSED"
    assert thread(api, issue_id)["totalCount"] == 1


def test_a_note_records_message_created_as_internal(workspace: WorkspaceFixture) -> None:
    api = workspace.client()
    issue_id = new_issue(api)["id"]
    since = last_sequence(api)

    note = add_note(api, issue_id, "a note")["message"]

    found = events_after(api, since)
    assert types_of(found) == ["message.created"]
    assert found[0]["data"]["message"]["id"] == note["id"]
    assert found[0]["data"]["message"]["visibility"] == "internal"


def test_notes_need_thread_reply_and_read_only_keys_read_them(
    workspace: WorkspaceFixture,
) -> None:
    api = workspace.client()
    issue_id = new_issue(api)["id"]
    add_note(api, issue_id, "a note")
    writer = api.with_key(workspace.create_key(["issues:read", "issues:write"]))
    reader = api.with_key(
        workspace.create_key(["issues:read", "contacts:read", "accounts:read", "articles:read"])
    )

    refused = writer(ADD_NOTE, {"input": {"issueId": issue_id, "body": "mine"}})
    read = thread(reader, issue_id, "internal")

    assert refused.codes == ["FORBIDDEN"]
    assert refused.errors[0]["extensions"]["requiredScopes"] == ["thread:reply"]
    assert [m["node"]["body"] for m in read["edges"]] == ["a note"]
    assert thread(api, issue_id)["totalCount"] == 2


def test_the_rest_interface_marks_a_note_internal(workspace: WorkspaceFixture) -> None:
    """When asked for notes (the interface leaves them out otherwise: tests/rest)."""
    api = workspace.client()
    issue_id = new_issue(api)["id"]
    add_note(api, issue_id, "a note")

    answer = httpx.get(
        f"{workspace.server.base_url}/v1/issues/{issue_id}",
        params={"include_internal": "true"},
        headers={"Authorization": f"Bearer {workspace.key}"},
        timeout=10,
    )

    assert answer.status_code == 200
    assert [(m["body"], m["visibility"]) for m in answer.json()["messages"]] == [
        ("It is on fire.", "public"),
        ("a note", "internal"),
    ]
