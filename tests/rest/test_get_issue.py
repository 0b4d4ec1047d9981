"""GET /v1/issues/{id} (CONTRACT section 13): the issue and its thread, with `issues:read`;
an issue of another workspace, or an id that names none, is not found alike."""

from __future__ import annotations

import pytest

from supportdesk.domain.pagination import MAX_PAGE_SIZE
from tests.client import GraphQLClient
from tests.conftest import WorkspaceFixture
from tests.factories import missing_id
from tests.graphql.issues.helpers import REPLY
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
            },
            {
                "id": reply["message"]["id"],
                "sender_name": reply["message"]["senderName"],
                "body": "On it.",
                "visibility": "public",
                "created_at": reply["message"]["createdAt"],
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
