"""The Idempotency-Key header means what createIssue's `idempotencyKey` means: a retry with
the same key and body answers the first issue; another body answers
IDEMPOTENCY_KEY_MISMATCH."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from tests.client import GraphQLClient
from tests.conftest import WorkspaceFixture
from tests.rest.client import ISSUE, RestClient


def count(api: GraphQLClient) -> int:
    total: int = api.ok("{ issues { totalCount } }")["issues"]["totalCount"]
    return total


def test_a_retry_with_the_same_key_answers_the_same_issue(
    rest: RestClient, api: GraphQLClient
) -> None:
    first = rest.create(idempotency_key="order-17")
    again = rest.create(
        {**ISSUE, "subject": f"  {ISSUE['subject']} ", "requester_email": "MOSS@example.com"},
        idempotency_key="order-17",
    )

    assert first.status == again.status == 201
    assert again.body == first.body
    assert count(api) == 1


def test_the_same_key_with_another_body_is_refused(rest: RestClient, api: GraphQLClient) -> None:
    rest.create(idempotency_key="order-18")

    refused = rest.create({**ISSUE, "body": "Something else."}, idempotency_key="order-18")

    assert refused.status == 422
    assert refused.code == "IDEMPOTENCY_KEY_MISMATCH"
    assert refused.fields == []
    assert count(api) == 1


def test_other_keys_and_no_key_create_new_issues(rest: RestClient) -> None:
    numbers = [
        rest.create(idempotency_key="a").body["ticket_number"],
        rest.create(idempotency_key="b").body["ticket_number"],
        rest.create().body["ticket_number"],
        rest.create().body["ticket_number"],
        rest.create(idempotency_key="").body["ticket_number"],
    ]

    assert numbers == [1, 2, 3, 4, 5]


def test_a_key_used_over_graphql_replays_over_rest(rest: RestClient, api: GraphQLClient) -> None:
    graphql = api.ok(
        "mutation($input: CreateIssueInput!) { createIssue(input: $input) { issue { id } } }",
        {
            "input": {
                "subject": ISSUE["subject"],
                "body": ISSUE["body"],
                "requesterEmail": ISSUE["requester_email"],
                "requesterName": ISSUE["requester_name"],
                "idempotencyKey": "shared-1",
            }
        },
    )["createIssue"]["issue"]

    replayed = rest.create(idempotency_key="shared-1")

    assert replayed.status == 201
    assert replayed.body["id"] == graphql["id"]
    assert count(api) == 1


def test_keys_belong_to_one_workspace(rest: RestClient, other_workspace: WorkspaceFixture) -> None:
    theirs = RestClient(other_workspace.server.base_url, other_workspace.key)

    mine = rest.create(idempotency_key="same")
    other = theirs.create({**ISSUE, "body": "Their own."}, idempotency_key="same")

    assert other.status == 201
    assert other.body["id"] != mine.body["id"]


def test_concurrent_retries_create_one_issue(
    workspace: WorkspaceFixture, api: GraphQLClient
) -> None:
    def send(_: int) -> tuple[int, str]:
        reply = RestClient(workspace.server.base_url, workspace.key).create(idempotency_key="burst")
        return reply.status, reply.body["id"]

    with ThreadPoolExecutor(max_workers=8) as pool:
        answers = list(pool.map(send, range(8)))

    assert {status for status, _ in answers} == {201}
    assert len({issue_id for _, issue_id in answers}) == 1
    assert count(api) == 1
