"""GET /v1/issues/{id} (CONTRACT section 13): the issue and its thread, with `issues:read`;
an issue of another workspace, or an id that names none, is not found alike. The thread is
its public messages: internal notes only with `include_internal=true` (the interface
predates notes, and its integrations may show the thread to the requester)."""

from __future__ import annotations

import pytest

from supportdesk.domain.pagination import MAX_PAGE_SIZE
from tests.client import GraphQLClient
from tests.conftest import WorkspaceFixture
from tests.factories import missing_id
from tests.graphql.issues.helpers import REPLY, add_note
from tests.rest.client import ISSUE, RestClient


def test_the_issue_comes_with_its_messages_oldest_first(
    rest: RestClient, api: GraphQLClient
) -> None:
    created = rest.created()
    reply = api.ok(REPLY, {"input": {"issueId": created["id"], "body": "On it."}})["replyToIssue"]

    answer = rest.get(created["id"])

    assert answer.status == 200, answer.body
    assert answer.body == {
        **created,
        "messages": [
            {
                "id": answer.body["messages"][0]["id"],
                "sender_name": "Maurice Moss",
                "body": ISSUE["body"],
                "visibility": "public",
                "created_at": created["created_at"],
                "attachments": [],
            },
            {
                "id": reply["message"]["id"],
                "sender_name": reply["message"]["senderName"],
                "body": "On it.",
                "visibility": "public",
                "created_at": reply["message"]["createdAt"],
                "attachments": [],
            },
        ],
    }
    assert answer.body["messages"][0]["id"].startswith("msg_")
    assert answer.headers["x-ratelimit-remaining"]


def test_the_status_is_the_current_one(rest: RestClient, api: GraphQLClient) -> None:
    created = rest.created()
    api.ok(REPLY, {"input": {"issueId": created["id"], "body": "Waiting.", "status": "pending"}})

    assert rest.get(created["id"]).body["status"] == "pending"


def test_a_long_thread_shows_its_first_page(rest: RestClient, api: GraphQLClient) -> None:
    created = rest.created()
    for number in range(MAX_PAGE_SIZE):
        api.ok(REPLY, {"input": {"issueId": created["id"], "body": f"Reply {number}"}})

    messages = rest.get(created["id"]).body["messages"]

    assert len(messages) == MAX_PAGE_SIZE
    assert messages[0]["body"] == ISSUE["body"]
    assert messages[-1]["body"] == f"Reply {MAX_PAGE_SIZE - 2}"


def test_a_key_with_issues_read_alone_reads_it(
    workspace: WorkspaceFixture, rest: RestClient
) -> None:
    created = rest.created()

    answer = rest.get(created["id"], key=workspace.create_key(["issues:read"]))

    assert answer.status == 200
    assert answer.body["ticket_number"] == created["ticket_number"]


def test_a_legacy_key_is_forbidden_even_for_the_issue_it_created(
    legacy_rest: RestClient,
) -> None:
    created = legacy_rest.created()

    answer = legacy_rest.get(created["id"])

    assert answer.status == 403
    assert answer.code == "FORBIDDEN"
    assert answer.error["required_scopes"] == ["issues:read"]
    assert "svc_live_" in answer.error["message"]
    assert "ticket_number" not in str(answer.body)


@pytest.mark.parametrize("scopes", [["issues:create"], ["issues:write", "contacts:read"]])
def test_a_key_without_issues_read_is_forbidden(
    workspace: WorkspaceFixture, rest: RestClient, scopes: list[str]
) -> None:
    created = rest.created()

    answer = rest.get(created["id"], key=workspace.create_key(scopes))

    assert answer.status == 403
    assert answer.error["required_scopes"] == ["issues:read"]


def test_the_scope_is_checked_before_existence(
    workspace: WorkspaceFixture, rest: RestClient
) -> None:
    answer = rest.get(missing_id("Issue"), key=workspace.create_key(["issues:create"]))

    assert answer.status == 403


def not_found(rest: RestClient, issue_id: str) -> dict[str, object]:
    answer = rest.get(issue_id)
    assert answer.status == 404, answer.body
    assert answer.headers["x-ratelimit-limit"]
    return {"code": answer.code, "message": answer.error["message"], "fields": answer.fields}


def test_unknown_foreign_and_malformed_ids_answer_the_same_404(
    rest: RestClient, other_workspace: WorkspaceFixture
) -> None:
    theirs = RestClient(other_workspace.server.base_url, other_workspace.key).created()
    contact_id = missing_id("Contact")

    answers = [
        not_found(rest, missing_id("Issue")),
        not_found(rest, theirs["id"]),
        not_found(rest, contact_id),
        not_found(rest, "not-an-id"),
        not_found(rest, theirs["id"].lower()),
        not_found(rest, "iss_%00"),
    ]

    assert answers == [{"code": "NOT_FOUND", "message": "Issue not found.", "fields": []}] * 6


NOTES = """query($id: ID!) {
  issue(id: $id) { messages(visibility: "internal") { edges { node { createdAt } } } }
}"""


def test_internal_notes_are_shown_only_when_asked_for(
    workspace: WorkspaceFixture, rest: RestClient, api: GraphQLClient
) -> None:
    created = rest.created()
    api.ok(REPLY, {"input": {"issueId": created["id"], "body": "On it."}})
    note = add_note(api, created["id"], "The requester is a VIP; go gently.")["message"]
    [note_as_read] = api.ok(NOTES, {"id": created["id"]})["issue"]["messages"]["edges"]
    reader = workspace.create_key(["issues:read"])

    plain = rest.get(created["id"])
    not_asked = rest.get(created["id"], params={"include_internal": "false"})
    asked = rest.get(created["id"], params={"include_internal": "true"})
    asked_by_reader = rest.get(created["id"], key=reader, params={"include_internal": "true"})

    assert plain.status == not_asked.status == asked.status == 200, plain.body
    shown = [(m["body"], m["visibility"]) for m in plain.body["messages"]]
    assert shown == [(ISSUE["body"], "public"), ("On it.", "public")]
    assert not_asked.body == plain.body
    assert asked.body["messages"][:2] == plain.body["messages"]
    assert asked.body["messages"][2] == {
        "id": note["id"],
        "sender_name": note["senderName"],
        "body": "The requester is a VIP; go gently.",
        "visibility": "internal",
        "created_at": note_as_read["node"]["createdAt"],
        "attachments": [],
    }
    assert asked_by_reader.body == asked.body
    assert "VIP" not in str(plain.body)


def test_a_thread_of_notes_still_shows_its_public_messages(
    rest: RestClient, api: GraphQLClient
) -> None:
    """The page is of public messages: notes never take a public message's place in it."""
    created = rest.created()
    for number in range(MAX_PAGE_SIZE):
        add_note(api, created["id"], f"Note {number}")
    api.ok(REPLY, {"input": {"issueId": created["id"], "body": "Fixed."}})

    public = rest.get(created["id"]).body["messages"]
    everything = rest.get(created["id"], params={"include_internal": "true"}).body["messages"]

    assert [m["body"] for m in public] == [ISSUE["body"], "Fixed."]
    assert len(everything) == MAX_PAGE_SIZE
    assert everything[-1]["body"] == f"Note {MAX_PAGE_SIZE - 2}"


@pytest.mark.parametrize(
    "params",
    [
        {"include_internal": "yes"},
        {"include_internal": "TRUE"},
        {"include_internal": "1"},
        {"include_internal": ""},
        [("include_internal", "true"), ("include_internal", "false")],
    ],
)
def test_another_value_of_include_internal_is_refused(rest: RestClient, params: object) -> None:
    created = rest.created()

    answer = rest.get(created["id"], params=params)

    assert answer.status == 422, answer.body
    assert answer.code == "VALIDATION_FAILED"
    assert answer.fields == [("include_internal", "INVALID")]
    assert answer.headers["x-ratelimit-remaining"]
