"""The seed's key lifecycle over HTTP: a machine user, a scoped key, use, revocation."""

from __future__ import annotations

from tests import factories
from tests.client import GraphQLClient

MACHINE_USERS = "{ machineUsers { edges { node { id name description managed } } } }"
ISSUES = "{ issues(first: 1) { totalCount } }"


def test_a_key_lives_from_creation_to_revocation(api: GraphQLClient) -> None:
    # A machine user for the integration, listed by machineUsers.
    user = factories.machine_user(api, "Zendesk bridge", "Syncs tickets")
    listed = [edge["node"] for edge in api.ok(MACHINE_USERS)["machineUsers"]["edges"]]
    assert {
        "id": user["id"],
        "name": "Zendesk bridge",
        "description": "Syncs tickets",
        "managed": False,
    } in listed

    # A key for it, with exactly the scopes asked for.
    payload = factories.api_key(api, user["id"], ["issues:read", "issues:write"], name="bridge")
    secret, key = payload["secret"], payload["apiKey"]
    assert secret.startswith("svc_mk_")
    assert key["keyPrefix"] == secret[:12] and secret.startswith(key["keyPrefix"])
    assert key["scopes"] == ["issues:read", "issues:write"]
    assert key["machineUser"]["id"] == user["id"]

    # It works within its scopes...
    bridge = api.with_key(secret)
    info = bridge.ok("{ apiInfo }")["apiInfo"]
    assert info["key"] == {
        "id": key["id"],
        "keyPrefix": key["keyPrefix"],
        "scopes": ["issues:read", "issues:write"],
        "expiresAt": None,
    }
    assert info["machineUser"] == {"id": user["id"], "name": "Zendesk bridge"}
    assert bridge.ok(ISSUES)["issues"]["totalCount"] == 0

    # ...and is FORBIDDEN, naming the scopes that would do, outside them.
    answer = bridge(MACHINE_USERS)
    assert answer.status == 200
    assert answer.data == {"machineUsers": None}
    assert answer.error_at("machineUsers")["extensions"] == {
        "code": "FORBIDDEN",
        "requiredScopes": ["machine_users:manage"],
    }
    answer = bridge(factories.REVOKE_API_KEY, {"id": key["id"]})
    assert answer.error_at("revokeApiKey")["extensions"] == {
        "code": "FORBIDDEN",
        "requiredScopes": ["api_keys:manage"],
    }

    # Revoked: the very next request is refused.
    revoked = api.ok(factories.REVOKE_API_KEY, {"id": key["id"]})["revokeApiKey"]
    assert revoked["error"] is None and revoked["apiKey"]["status"] == "revoked"
    answer = bridge("{ apiInfo }")
    assert answer.status == 401
    assert answer.headers["www-authenticate"] == "Bearer"
    assert answer.errors[0]["extensions"] == {"code": "UNAUTHENTICATED", "reason": "revoked"}

    # The admin key is unaffected.
    assert api.ok("{ apiInfo }")["apiInfo"]["key"]["id"] != key["id"]
