"""Two workspaces: nothing of one is visible to a key of the other. An id of the other
workspace gets exactly the answer a well-formed id of nothing gets (CONTRACT section 1)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from tests import factories
from tests.client import GraphQLClient
from tests.conftest import WorkspaceFixture

UPDATE_MACHINE_USER = """
mutation($id: ID!) {
  updateMachineUser(input: {id: $id, name: "Hijacked"}) {
    machineUser { id name } error { code message fields { field code } }
  }
}
"""
NODE = "query($id: ID!) { node(id: $id) { __typename id } }"
KEYS_OF = "query($id: ID) { apiKeys(machineUserId: $id) { totalCount edges { node { id } } } }"


@dataclass
class Theirs:
    """What the other workspace holds; `client` is theirs, `api` is ours."""

    client: GraphQLClient
    machine_user_id: str
    key_id: str
    key_secret: str
    event_id: str


@pytest.fixture
def theirs(other_workspace: WorkspaceFixture) -> Theirs:
    client = other_workspace.client()
    user = factories.machine_user(client, "Shared name")
    created = factories.api_key(client, user["id"], ["issues:read"], name="their key")
    event = client.ok("{ auditEvents(first: 1) { edges { node { id } } } }")["auditEvents"]
    return Theirs(
        client,
        user["id"],
        created["apiKey"]["id"],
        created["secret"],
        event["edges"][0]["node"]["id"],
    )


def same_answer(api: GraphQLClient, query: str, name: str, theirs_id: str, type_name: str) -> Any:
    """Ask with their id and with an id of nothing; the answers must be identical."""
    with_theirs = api(query, {name: theirs_id})
    with_nothing = api(query, {name: factories.missing_id(type_name)})
    assert (with_theirs.status, with_theirs.body) == (with_nothing.status, with_nothing.body)
    return with_theirs


def ids_in(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set().union(*(ids_in(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(ids_in(v) for v in value)) if value else set()
    return {value} if isinstance(value, str) else set()


def test_machine_users_lists_only_its_own(api: GraphQLClient, theirs: Theirs) -> None:
    page = api.ok(
        "{ machineUsers { totalCount edges { node { id name apiKeys { edges { node { id } } } } } } }"
    )

    assert page["machineUsers"]["totalCount"] == 1
    assert not {theirs.machine_user_id, theirs.key_id} & ids_in(page)


def test_create_machine_user_does_not_see_their_names(api: GraphQLClient, theirs: Theirs) -> None:
    payload = api.ok(factories.CREATE_MACHINE_USER, {"input": {"name": "shared NAME"}})

    assert payload["createMachineUser"]["error"] is None
    theirs_now = theirs.client.ok("{ machineUsers { totalCount } }")["machineUsers"]
    assert theirs_now["totalCount"] == 2


def test_update_machine_user_cannot_reach_theirs(api: GraphQLClient, theirs: Theirs) -> None:
    answer = same_answer(api, UPDATE_MACHINE_USER, "id", theirs.machine_user_id, "MachineUser")

    assert answer.data["updateMachineUser"]["error"]["code"] == "NOT_FOUND"
    names = theirs.client.ok("{ machineUsers { edges { node { name } } } }")
    assert "Hijacked" not in str(names)


def test_api_keys_lists_only_its_own(api: GraphQLClient, theirs: Theirs) -> None:
    page = api.ok("{ apiKeys { totalCount edges { node { id machineUser { id } } } } }")

    assert page["apiKeys"]["totalCount"] == 1
    assert not {theirs.machine_user_id, theirs.key_id} & ids_in(page)
    answer = same_answer(api, KEYS_OF, "id", theirs.machine_user_id, "MachineUser")
    assert answer.data["apiKeys"] == {"totalCount": 0, "edges": []}


def test_create_api_key_cannot_use_their_machine_user(api: GraphQLClient, theirs: Theirs) -> None:
    query = """
    mutation($owner: ID!) {
      createApiKey(input: {machineUserId: $owner, name: "sneaky", scopes: ["issues:read"]}) {
        apiKey { id } secret error { code message fields { field code } }
      }
    }"""

    answer = same_answer(api, query, "owner", theirs.machine_user_id, "MachineUser")

    assert answer.data["createApiKey"]["error"]["code"] == "NOT_FOUND"
    keys = theirs.client.ok("{ apiKeys { totalCount } }")["apiKeys"]
    assert keys["totalCount"] == 2  # their initial key and "their key"


def test_revoke_api_key_cannot_reach_theirs(api: GraphQLClient, theirs: Theirs) -> None:
    answer = same_answer(api, factories.REVOKE_API_KEY, "id", theirs.key_id, "ApiKey")

    assert answer.data["revokeApiKey"]["error"]["code"] == "NOT_FOUND"
    assert theirs.client.ok("{ apiInfo }", key=theirs.key_secret)["apiInfo"]["key"]["id"] == (
        theirs.key_id
    )


def test_audit_events_lists_only_its_own(api: GraphQLClient, theirs: Theirs) -> None:
    page = api.ok("{ auditEvents { totalCount edges { node { id actorId targetId data } } } }")

    assert page["auditEvents"]["totalCount"] == 1
    assert not {theirs.machine_user_id, theirs.key_id, theirs.event_id} & ids_in(page)


@pytest.mark.parametrize(
    ("attribute", "type_name"),
    [("machine_user_id", "MachineUser"), ("key_id", "ApiKey"), ("event_id", "AuditEvent")],
)
def test_node_cannot_reach_theirs(
    api: GraphQLClient, theirs: Theirs, attribute: str, type_name: str
) -> None:
    answer = same_answer(api, NODE, "id", getattr(theirs, attribute), type_name)

    assert answer.data == {"node": None}
    assert answer.error_at("node")["extensions"] == {"code": "NOT_FOUND"}
    # ...while their own key does reach it.
    found = theirs.client.ok(NODE, {"id": getattr(theirs, attribute)})["node"]
    assert found == {"__typename": type_name, "id": getattr(theirs, attribute)}
