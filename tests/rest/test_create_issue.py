"""POST /v1/issues (CONTRACT section 13): the domain's createIssue, behind the same keys and
scopes as GraphQL's."""

from __future__ import annotations

import re

import pytest

from tests.client import GraphQLClient
from tests.conftest import WorkspaceFixture
from tests.rest.client import ISSUE, RestClient

RFC3339_MILLISECONDS = re.compile(r"\A\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\Z")
READ_BACK = """
query($id: ID!) {
  issue(id: $id) {
    id ticketNumber subject status priority createdAt
    requester { email name }
    messages { edges { node { senderName body } } }
  }
}
"""


def test_a_legacy_key_creates_an_issue(legacy_rest: RestClient) -> None:
    reply = legacy_rest.create()

    assert reply.status == 201, reply.body
    assert set(reply.body) == {"id", "ticket_number", "subject", "status", "priority", "created_at"}
    assert reply.body["id"].startswith("iss_")
    assert reply.body["ticket_number"] == 1
    assert reply.body["subject"] == ISSUE["subject"]
    assert reply.body["status"] == "new"
    assert reply.body["priority"] == "normal"
    assert RFC3339_MILLISECONDS.match(reply.body["created_at"])
    assert reply.headers["location"] == f"/v1/issues/{reply.body['id']}"
    assert reply.headers["content-type"] == "application/json"


@pytest.mark.parametrize("scope", ["issues:create", "issues:write"])
def test_a_key_with_a_scope_that_creates_issues_creates_one(
    workspace: WorkspaceFixture, rest: RestClient, scope: str
) -> None:
    key = workspace.create_key([scope])

    reply = rest.create(key=key)

    assert reply.status == 201, reply.body
    assert reply.body["ticket_number"] == 1


def test_a_key_without_such_a_scope_is_forbidden_and_nothing_is_created(
    workspace: WorkspaceFixture, rest: RestClient, api: GraphQLClient
) -> None:
    key = workspace.create_key(["issues:read", "contacts:write", "thread:reply"])

    reply = rest.create(key=key)

    assert reply.status == 403
    assert reply.code == "FORBIDDEN"
    assert reply.error["required_scopes"] == ["issues:create", "issues:write"]
    assert reply.fields == []
    assert "issues:create" in reply.error["message"]
    assert reply.headers["x-ratelimit-limit"]
    assert api.ok("{ issues { totalCount } }")["issues"]["totalCount"] == 0


def test_the_issue_is_the_one_graphql_reads(rest: RestClient, api: GraphQLClient) -> None:
    created = rest.created(priority="HIGH", requester_email="Moss@Example.com")

    issue = api.ok(READ_BACK, {"id": created["id"]})["issue"]

    assert issue["ticketNumber"] == created["ticket_number"]
    assert issue["subject"] == created["subject"]
    assert issue["status"] == created["status"]
    assert issue["priority"] == created["priority"] == "high"
    assert issue["createdAt"] == created["created_at"]
    assert issue["requester"] == {"email": "Moss@Example.com", "name": "Maurice Moss"}
    assert issue["messages"]["edges"] == [
        {"node": {"senderName": "Maurice Moss", "body": ISSUE["body"]}}
    ]


def test_rest_and_graphql_share_one_ticket_number_sequence(
    rest: RestClient, legacy_rest: RestClient, api: GraphQLClient
) -> None:
    create = "mutation($input: CreateIssueInput!) { createIssue(input: $input) { issue { ticketNumber } } }"
    graphql_input = {"subject": "Via GraphQL", "body": "Hello", "requesterEmail": "g@example.com"}

    numbers = [
        rest.created()["ticket_number"],
        api.ok(create, {"input": graphql_input})["createIssue"]["issue"]["ticketNumber"],
        legacy_rest.created()["ticket_number"],
        api.ok(create, {"input": graphql_input})["createIssue"]["issue"]["ticketNumber"],
    ]

    assert numbers == [1, 2, 3, 4]


def test_only_the_required_fields_are_needed(rest: RestClient) -> None:
    reply = rest.create({"subject": "Short", "body": "Text", "requester_email": "a@example.com"})

    assert reply.status == 201, reply.body
    assert reply.body["priority"] == "normal"


def test_null_optional_fields_and_unknown_members_are_accepted(rest: RestClient) -> None:
    reply = rest.create({**ISSUE, "requester_name": None, "priority": None, "tags": ["x"]})

    assert reply.status == 201, reply.body


def test_every_answer_carries_the_rate_limit_headers_and_a_request_id(rest: RestClient) -> None:
    reply = rest.create()

    assert int(reply.headers["x-ratelimit-limit"]) > 0
    assert int(reply.headers["x-ratelimit-remaining"]) >= 0
    assert int(reply.headers["x-ratelimit-reset"]) > 0
    assert reply.headers["x-request-id"]
