"""revokeApiKey: effective on the next request; idempotent; unknown ids are NOT_FOUND."""

from __future__ import annotations

import pytest

from tests import factories
from tests.client import GraphQLClient


def revoke(api: GraphQLClient, key_id: str) -> dict[str, object]:
    return api.ok(factories.REVOKE_API_KEY, {"id": key_id})["revokeApiKey"]


def test_a_revoked_key_stops_working_on_the_next_request(api: GraphQLClient) -> None:
    owner = factories.machine_user(api, "Soon revoked")["id"]
    created = factories.api_key(api, owner, ["issues:read"])
    assert api("{ apiInfo }", key=created["secret"]).status == 200

    payload = revoke(api, created["apiKey"]["id"])

    assert payload["error"] is None
    assert payload["apiKey"]["status"] == "revoked"
    assert payload["apiKey"]["revokedAt"] is not None
    answer = api("{ apiInfo }", key=created["secret"])
    assert answer.status == 401
    assert answer.errors[0]["extensions"]["reason"] == "revoked"


def test_revoking_twice_succeeds_and_keeps_the_first_moment(api: GraphQLClient) -> None:
    owner = factories.machine_user(api, "Twice")["id"]
    key_id = factories.api_key(api, owner, ["issues:read"])["apiKey"]["id"]
    first = revoke(api, key_id)

    second = revoke(api, key_id)

    assert second == first
    events = api.ok("{ auditEvents { edges { node { action targetId } } } }")["auditEvents"]
    revocations = [e for e in events["edges"] if e["node"]["action"] == "api_key.revoked"]
    assert revocations == [{"node": {"action": "api_key.revoked", "targetId": key_id}}]


def test_a_key_may_revoke_itself(api: GraphQLClient) -> None:
    owner = factories.machine_user(api, "Self")["id"]
    created = factories.api_key(api, owner, ["api_keys:manage"])
    own = api.with_key(created["secret"])

    payload = revoke(own, created["apiKey"]["id"])

    assert payload["apiKey"]["status"] == "revoked"
    assert own("{ apiKeys { totalCount } }").status == 401


@pytest.mark.parametrize(
    "key_id",
    ["garbage", "key_1", factories.missing_id("ApiKey"), factories.missing_id("MachineUser")],
)
def test_an_id_that_names_no_key_is_not_found(api: GraphQLClient, key_id: str) -> None:
    payload = revoke(api, key_id)

    assert payload == {
        "apiKey": None,
        "error": {"code": "NOT_FOUND", "message": "API key not found.", "fields": []},
    }
