"""createIssue with an idempotency key: a retried request creates nothing twice."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from tests.client import GraphQLClient
from tests.conftest import WorkspaceFixture
from tests.graphql.issues.helpers import CREATE

INPUT = {
    "subject": "Webhook delivery",
    "body": "Sent from a job that retries.",
    "requesterEmail": "jobs@example.com",
    "idempotencyKey": "delivery-42",
}


def create(api: GraphQLClient, **changes: object) -> dict[str, object]:
    payload: dict[str, object] = api.ok(CREATE, {"input": {**INPUT, **changes}})["createIssue"]
    return payload


def test_a_retry_with_the_same_key_answers_the_same_issue(api: GraphQLClient) -> None:
    first = create(api)
    again = create(api, requesterEmail="JOBS@example.com", subject=" Webhook delivery ")

    assert first["error"] is None
    assert again == first
    assert api.ok("{ issues { totalCount } }")["issues"]["totalCount"] == 1


def test_the_same_key_with_another_request_is_refused(api: GraphQLClient) -> None:
    create(api)

    refused = create(api, body="Something else entirely.")

    assert refused["issue"] is None
    assert refused["error"]["code"] == "IDEMPOTENCY_KEY_MISMATCH"  # type: ignore[index]
    assert api.ok("{ issues { totalCount } }")["issues"]["totalCount"] == 1


def test_other_keys_and_no_key_create_new_issues(api: GraphQLClient) -> None:
    numbers = {
        create(api)["issue"]["ticketNumber"],  # type: ignore[index]
        create(api, idempotencyKey="delivery-43")["issue"]["ticketNumber"],  # type: ignore[index]
        create(api, idempotencyKey=None)["issue"]["ticketNumber"],  # type: ignore[index]
        create(api, idempotencyKey=None)["issue"]["ticketNumber"],  # type: ignore[index]
    }

    assert numbers == {1, 2, 3, 4}


def test_keys_belong_to_one_workspace(
    api: GraphQLClient, other_workspace: WorkspaceFixture
) -> None:
    mine = create(api)
    theirs = create(other_workspace.client(), body="Their own request.")

    assert theirs["error"] is None
    assert theirs["issue"]["id"] != mine["issue"]["id"]  # type: ignore[index]


def test_an_oversize_key_is_refused(api: GraphQLClient) -> None:
    refused = api.ok(
        "mutation($input: CreateIssueInput!) { createIssue(input: $input) { issue { id } error { code fields { field code } } } }",
        {"input": {**INPUT, "idempotencyKey": "k" * 256}},
    )["createIssue"]

    assert refused["issue"] is None
    assert refused["error"]["fields"] == [{"field": "idempotencyKey", "code": "TOO_LONG"}]


def test_concurrent_retries_create_one_issue(workspace: WorkspaceFixture) -> None:
    def send(_: int) -> dict[str, object]:
        return create(workspace.client())

    with ThreadPoolExecutor(max_workers=8) as pool:
        answers = list(pool.map(send, range(8)))

    assert all(answer["error"] is None for answer in answers)
    assert len({answer["issue"]["id"] for answer in answers}) == 1  # type: ignore[index]
    assert workspace.client().ok("{ issues { totalCount } }")["issues"]["totalCount"] == 1
