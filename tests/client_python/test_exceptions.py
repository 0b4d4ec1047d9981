"""Each refusal of the service arrives as its own exception."""

from __future__ import annotations

import pytest

from supportdesk_client import (
    Client,
    Forbidden,
    InvalidRequest,
    MutationError,
    NotFound,
    RateLimited,
    Unauthenticated,
)
from supportdesk_client.generated import CreateLabelInput
from tests.client_python.conftest import STRICT_RATE_LIMIT
from tests.conftest import WorkspaceFixture, make_workspace
from tests.servers import RunningServer

ISSUE = {
    "subject": "Printer on fire",
    "body": "It is on fire.",
    "requester_email": "moss@example.com",
}


def test_a_revoked_or_unknown_key_is_unauthenticated(workspace: WorkspaceFixture) -> None:
    bad_key = workspace.key[:-6] + "000000"  # the checksum no longer matches
    with (
        Client(workspace.server.base_url, bad_key) as client,
        pytest.raises(Unauthenticated) as raised,
    ):
        client.api_info()

    assert raised.value.status == 401
    assert raised.value.reason == "malformed"


def test_a_read_only_key_is_forbidden_to_create_and_told_which_scopes_would_do(
    workspace: WorkspaceFixture,
) -> None:
    read_only = workspace.create_key(["issues:read"])
    with Client(workspace.server.base_url, read_only) as client, pytest.raises(Forbidden) as raised:
        client.issues.create(**ISSUE)

    assert raised.value.code == "FORBIDDEN"
    assert raised.value.required_scopes == ["issues:create", "issues:write"]
    assert raised.value.path == ["createIssue"]


def test_a_missing_issue_is_not_found(client: Client) -> None:
    with pytest.raises(NotFound) as raised:
        client.issues.get("iss_01M81VV4DNE3E2SQWGTC0WK5CT")
    with pytest.raises(NotFound):
        client.issues.get_by_number(999_999)

    assert raised.value.path == ["issue"]


def test_a_refused_create_is_a_mutation_error_with_the_codes_of_each_field(client: Client) -> None:
    with pytest.raises(MutationError) as raised:
        client.issues.create(subject="", body="x" * 70_000, requester_email="not an address")

    assert raised.value.code == "VALIDATION_FAILED"
    assert raised.value.fields == {
        "subject": "REQUIRED",
        "body": "TOO_LONG",
        "requesterEmail": "INVALID",
    }


def test_every_generated_mutation_raises_its_payload_error(client: Client) -> None:
    client.graphql.create_label(CreateLabelInput(name="Defect"))

    with pytest.raises(MutationError) as raised:
        client.graphql.create_label(CreateLabelInput(name="DEFECT"))

    assert raised.value.code == "ALREADY_EXISTS"


def test_a_spent_rate_limit_past_the_retries_is_rate_limited(strict_server: RunningServer) -> None:
    workspace = make_workspace(strict_server)
    with Client(strict_server.base_url, workspace.key, max_retries=0) as client:
        for _ in range(STRICT_RATE_LIMIT):
            client.api_info()
        with pytest.raises(RateLimited) as raised:
            client.api_info()

    assert raised.value.status == 429
    assert raised.value.retry_after is not None and 1 <= raised.value.retry_after <= 60


def test_a_wait_longer_than_the_cap_is_not_made(strict_server: RunningServer) -> None:
    """Retry-After names the refill of the minute: past max_retry_wait, no retry."""
    workspace = make_workspace(strict_server)
    with Client(strict_server.base_url, workspace.key, max_retries=5, max_retry_wait=0.5) as client:
        for _ in range(STRICT_RATE_LIMIT):
            client.api_info()
        with pytest.raises(RateLimited):
            client.api_info()


@pytest.mark.parametrize("key", ["", "   ", "svc_mk_secretpart\nsecond line"])
def test_an_empty_or_broken_key_is_refused_without_echoing_it(key: str) -> None:
    with pytest.raises(ValueError, match="api_key must be the key's secret") as refused:
        Client("http://127.0.0.1:9", key)

    assert "secretpart" not in str(refused.value)


def test_a_key_read_with_its_trailing_newline_works(workspace: WorkspaceFixture) -> None:
    with Client(workspace.server.base_url, workspace.key + "\n") as client:
        assert client.api_info()["workspace"]["id"] == workspace.id


def test_a_body_over_the_size_limit_is_an_invalid_request(client: Client) -> None:
    with pytest.raises(InvalidRequest) as refused:
        client.issues.create(
            subject="Big", body="x" * (1024 * 1024 + 1), requester_email="big@example.com"
        )

    assert refused.value.code == "PAYLOAD_TOO_LARGE" and refused.value.status == 413
