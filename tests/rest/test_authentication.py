"""401 answers (CONTRACT sections 7 and 13): the same reasons as GraphQL's, in the REST
shape, with WWW-Authenticate: Bearer; no rate-limit headers (no key was admitted)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import update

from supportdesk.auth.keys import generate_secret
from supportdesk.db.tables import api_keys
from tests import factories
from tests.client import GraphQLClient
from tests.conftest import WorkspaceFixture
from tests.rest.client import Reply, RestClient


def assert_unauthenticated(reply: Reply, reason: str) -> None:
    assert reply.status == 401, reply.body
    assert reply.headers["www-authenticate"] == "Bearer"
    assert reply.headers["x-request-id"]
    assert "x-ratelimit-limit" not in reply.headers
    assert reply.code == "UNAUTHENTICATED"
    assert reply.error["reason"] == reason
    assert reply.error["message"]
    assert reply.fields == []


def both_operations(rest: RestClient, headers: dict[str, str]) -> list[Reply]:
    return [
        rest.request("POST", "/v1/issues", json={}, headers=headers),
        rest.request("GET", f"/v1/issues/{factories.missing_id('Issue')}", headers=headers),
    ]


@pytest.mark.parametrize(
    ("authorization", "reason"),
    [
        (None, "missing"),
        ("Basic dXNlcjpwYXNz", "malformed"),
        ("Bearer", "malformed"),
        ("Bearer not-a-key", "malformed"),
        ("Bearer svc_live_" + "a" * 38, "malformed"),
    ],
)
def test_a_request_without_a_key_of_ours_is_refused(
    rest: RestClient, authorization: str | None, reason: str
) -> None:
    headers = {"Authorization": authorization} if authorization else {}

    for reply in both_operations(rest, headers):
        assert_unauthenticated(reply, reason)


@pytest.mark.parametrize(
    ("authorization", "said"),
    [
        ("Bearer", "holds `Bearer` and no key"),  # "Bearer $KEY" with KEY unset
        ("Basic dXNlcjpwYXNz", "Use the Bearer scheme"),
        ("Bearer svc_mk_nope", "a typo or a cut breaks its checksum"),
    ],
)
def test_a_malformed_header_is_told_what_is_wrong_with_it(
    rest: RestClient, authorization: str, said: str
) -> None:
    reply = rest.request("POST", "/v1/issues", json={}, headers={"Authorization": authorization})

    assert_unauthenticated(reply, "malformed")
    assert said in reply.error["message"]


def test_a_wellformed_key_that_was_never_issued_is_invalid(rest: RestClient) -> None:
    headers = {"Authorization": f"Bearer {generate_secret()}"}

    for reply in both_operations(rest, headers):
        assert_unauthenticated(reply, "invalid")


def test_a_revoked_key_is_refused(rest: RestClient, api: GraphQLClient) -> None:
    owner = factories.machine_user(api, "Old REST integration")["id"]
    created = factories.api_key(api, owner, ["issues:read", "issues:create"])
    assert rest.create(key=created["secret"]).status == 201
    api.ok(factories.REVOKE_API_KEY, {"id": created["apiKey"]["id"]})

    for reply in both_operations(rest, rest.headers(created["secret"])):
        assert_unauthenticated(reply, "revoked")


def test_an_expired_key_is_refused(
    workspace: WorkspaceFixture, rest: RestClient, api: GraphQLClient
) -> None:
    owner = factories.machine_user(api, "Expiring REST integration")["id"]
    created = factories.api_key(api, owner, ["issues:create"])
    expire(workspace, created["apiKey"]["id"])

    for reply in both_operations(rest, rest.headers(created["secret"])):
        assert_unauthenticated(reply, "expired")


def expire(workspace: WorkspaceFixture, key_id: str) -> None:
    """Move a key's expiry into the past, as the passing of time would."""

    async def move() -> None:
        async with workspace.server.db.transaction() as connection:
            await connection.execute(
                update(api_keys)
                .where(api_keys.c.workspace_id == workspace.id, api_keys.c.id == key_id)
                .values(expires_at=datetime.now(UTC) - timedelta(seconds=1))
            )

    workspace.server.call(move())
