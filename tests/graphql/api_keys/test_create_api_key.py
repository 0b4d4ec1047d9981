"""createApiKey: a svc_mk_ secret shown once, scopes as asked, and the contract's errors."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest

from supportdesk.auth.keys import kind_of_wellformed
from tests import factories
from tests.client import GraphQLClient
from tests.conftest import WorkspaceFixture

SECRET = re.compile(r"\Asvc_mk_[0-9A-Za-z]{38}\Z")


def create(api: GraphQLClient, **values: object) -> dict[str, object]:
    return api.ok(factories.CREATE_API_KEY, {"input": values})["createApiKey"]


@pytest.fixture
def owner(api: GraphQLClient) -> str:
    return factories.machine_user(api, "Key owner")["id"]


def test_a_key_is_created_with_its_secret_once(api: GraphQLClient, owner: str) -> None:
    payload = create(api, machineUserId=owner, name=" CI deploys ", scopes=["issues:read"])

    assert payload["error"] is None
    secret, key = payload["secret"], payload["apiKey"]
    assert SECRET.match(secret) and kind_of_wellformed(secret) == "standard"
    assert key["id"].startswith("key_")
    assert key["keyPrefix"] == secret[:12]
    assert key["name"] == "CI deploys"
    assert key["scopes"] == ["issues:read"]
    assert key["kind"] == "standard"
    assert key["status"] == "active"
    assert key["lastUsedAt"] is None and key["revokedAt"] is None and key["expiresAt"] is None
    assert key["machineUser"] == {"id": owner, "name": "Key owner"}


def test_scopes_are_stored_sorted_and_deduplicated(api: GraphQLClient, owner: str) -> None:
    payload = create(
        api,
        machineUserId=owner,
        name="messy",
        scopes=["issues:write", "issues:read", " issues:read", "contacts:read"],
    )

    assert payload["apiKey"]["scopes"] == ["contacts:read", "issues:read", "issues:write"]
    listed = api.ok(
        "query($id: ID!) { node(id: $id) { ... on ApiKey { scopes } } }",
        {"id": payload["apiKey"]["id"]},
    )
    assert listed["node"]["scopes"] == ["contacts:read", "issues:read", "issues:write"]


def test_the_secret_cannot_be_read_again(api: GraphQLClient, owner: str) -> None:
    payload = create(api, machineUserId=owner, name="once", scopes=["issues:read"])

    answer = api(
        "query($id: ID!) { node(id: $id) { ... on ApiKey { secret } } }",
        {"id": payload["apiKey"]["id"]},
    )

    assert answer.codes == ["GRAPHQL_VALIDATION_FAILED"]
    assert payload["secret"] not in str(
        api.ok("{ apiKeys { edges { node { id keyPrefix name } } } }")
    )


def test_an_unknown_scope_is_unknown_scope(api: GraphQLClient, owner: str) -> None:
    payload = create(api, machineUserId=owner, name="k", scopes=["issues:read", "issues:delete"])

    assert payload["apiKey"] is None and payload["secret"] is None
    assert payload["error"]["code"] == "UNKNOWN_SCOPE"
    assert "issues:delete" in payload["error"]["message"]


def test_granting_a_scope_the_caller_lacks_is_scope_escalation(
    workspace: WorkspaceFixture, api: GraphQLClient, owner: str
) -> None:
    limited = workspace.client(workspace.create_key(["api_keys:manage", "issues:read"]))

    payload = create(limited, machineUserId=owner, name="k", scopes=["issues:read", "issues:write"])

    assert payload["apiKey"] is None and payload["secret"] is None
    assert payload["error"]["code"] == "SCOPE_ESCALATION"
    assert "issues:write" in payload["error"]["message"]


def test_a_key_may_grant_what_it_holds(workspace: WorkspaceFixture, owner: str) -> None:
    limited = workspace.client(workspace.create_key(["api_keys:manage", "issues:read"]))

    payload = create(limited, machineUserId=owner, name="k", scopes=["issues:read"])

    assert payload["error"] is None
    assert payload["apiKey"]["scopes"] == ["issues:read"]


def test_an_empty_name_is_required(api: GraphQLClient, owner: str) -> None:
    payload = create(api, machineUserId=owner, name="  ", scopes=["issues:read"])

    assert payload["apiKey"] is None
    assert payload["error"]["code"] == "VALIDATION_FAILED"
    assert payload["error"]["fields"] == [{"field": "name", "code": "REQUIRED"}]


def test_no_scopes_is_required(api: GraphQLClient, owner: str) -> None:
    payload = create(api, machineUserId=owner, name="k", scopes=[])

    assert payload["error"]["code"] == "VALIDATION_FAILED"
    assert payload["error"]["fields"] == [{"field": "scopes", "code": "REQUIRED"}]


def test_an_expiry_in_the_past_is_validation_failed(api: GraphQLClient, owner: str) -> None:
    past = (datetime.now(UTC) - timedelta(minutes=1)).isoformat()

    payload = create(api, machineUserId=owner, name="k", scopes=["issues:read"], expiresAt=past)

    assert payload["apiKey"] is None
    assert payload["error"]["code"] == "VALIDATION_FAILED"
    assert payload["error"]["fields"] == [{"field": "expiresAt", "code": "INVALID"}]


def test_an_expiry_without_a_time_zone_is_bad_user_input(api: GraphQLClient, owner: str) -> None:
    values = {
        "machineUserId": owner,
        "name": "k",
        "scopes": ["issues:read"],
        "expiresAt": "2099-01-01T00:00:00",
    }

    answer = api(factories.CREATE_API_KEY, {"input": values})

    assert answer.status == 200
    assert answer.codes == ["BAD_USER_INPUT"]
    assert "data" not in answer.body


@pytest.mark.parametrize(
    "machine_user_id",
    [
        "garbage",
        "mu_1",
        factories.missing_id("MachineUser"),
        factories.missing_id("ApiKey"),
    ],
)
def test_a_machine_user_that_does_not_exist_is_not_found(
    api: GraphQLClient, machine_user_id: str
) -> None:
    payload = create(api, machineUserId=machine_user_id, name="k", scopes=["issues:read"])

    assert payload["apiKey"] is None and payload["secret"] is None
    assert payload["error"] == {
        "code": "NOT_FOUND",
        "message": "Machine user not found.",
        "fields": [],
    }


def test_creating_is_recorded_without_the_secret(api: GraphQLClient, owner: str) -> None:
    payload = create(api, machineUserId=owner, name="audited", scopes=["issues:read"])

    latest = api.ok("{ auditEvents(first: 1) { edges { node { action targetId data } } } }")[
        "auditEvents"
    ]["edges"][0]["node"]

    assert latest == {
        "action": "api_key.created",
        "targetId": payload["apiKey"]["id"],
        "data": {
            "name": "audited",
            "scopes": ["issues:read"],
            "key_prefix": payload["apiKey"]["keyPrefix"],
        },
    }


def test_creating_needs_api_keys_manage(workspace: WorkspaceFixture, owner: str) -> None:
    client = workspace.client(workspace.create_key(["machine_users:manage"]))

    answer = client(
        factories.CREATE_API_KEY,
        {"input": {"machineUserId": owner, "name": "k", "scopes": ["issues:read"]}},
    )

    assert answer.data == {"createApiKey": None}
    assert answer.error_at("createApiKey")["extensions"] == {
        "code": "FORBIDDEN",
        "requiredScopes": ["api_keys:manage"],
    }


def _expiring_admin_key(api: GraphQLClient, owner: str, expires_at: datetime) -> str:
    payload = create(
        api,
        machineUserId=owner,
        name="expiring admin",
        scopes=["api_keys:manage", "issues:read"],
        expiresAt=expires_at.isoformat(),
    )
    return str(payload["secret"])


def test_a_key_that_expires_gives_its_expiry_to_the_keys_it_makes(
    api: GraphQLClient, owner: str, workspace: WorkspaceFixture
) -> None:
    in_an_hour = (datetime.now(UTC) + timedelta(hours=1)).replace(microsecond=0)
    expiring = workspace.client(_expiring_admin_key(api, owner, in_an_hour))

    payload = create(expiring, machineUserId=owner, name="child", scopes=["issues:read"])

    assert payload["error"] is None
    assert payload["apiKey"]["expiresAt"] == in_an_hour.isoformat(timespec="milliseconds").replace(
        "+00:00", "Z"
    )


def test_a_key_cannot_make_a_key_that_outlives_it(
    api: GraphQLClient, owner: str, workspace: WorkspaceFixture
) -> None:
    in_an_hour = datetime.now(UTC) + timedelta(hours=1)
    expiring = workspace.client(_expiring_admin_key(api, owner, in_an_hour))
    later = (in_an_hour + timedelta(days=1)).isoformat()

    payload = create(
        expiring, machineUserId=owner, name="child", scopes=["issues:read"], expiresAt=later
    )
    keys = expiring.ok("{ apiKeys(first: 100) { edges { node { name } } } }")["apiKeys"]

    assert payload["apiKey"] is None and payload["secret"] is None
    assert payload["error"]["code"] == "VALIDATION_FAILED"
    assert payload["error"]["fields"] == [{"field": "expiresAt", "code": "INVALID"}]
    assert "outlive" in payload["error"]["message"]
    assert "child" not in [edge["node"]["name"] for edge in keys["edges"]]


def test_an_earlier_expiry_than_the_granters_is_kept(
    api: GraphQLClient, owner: str, workspace: WorkspaceFixture
) -> None:
    in_a_day = datetime.now(UTC) + timedelta(days=1)
    expiring = workspace.client(_expiring_admin_key(api, owner, in_a_day))
    in_an_hour = (datetime.now(UTC) + timedelta(hours=1)).replace(microsecond=0)

    payload = create(
        expiring,
        machineUserId=owner,
        name="child",
        scopes=["issues:read"],
        expiresAt=in_an_hour.isoformat(),
    )

    assert payload["error"] is None
    assert payload["apiKey"]["expiresAt"].startswith(in_an_hour.strftime("%Y-%m-%dT%H:%M:%S"))
