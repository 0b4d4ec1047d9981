"""node(id): any object by its global id, under the scopes of its own type."""

from __future__ import annotations

import pytest

from tests import factories
from tests.client import GraphQLClient
from tests.conftest import WorkspaceFixture

NODE = """
query($id: ID!) {
  node(id: $id) {
    __typename id
    ... on MachineUser { name }
    ... on ApiKey { keyPrefix }
    ... on AuditEvent { action }
  }
}
"""


def test_each_kind_of_object_is_found_by_its_id(api: GraphQLClient) -> None:
    user = factories.machine_user(api, "Findable")
    key = factories.api_key(api, user["id"], ["issues:read"])["apiKey"]
    event = api.ok("{ auditEvents(first: 1) { edges { node { id } } } }")["auditEvents"]["edges"][
        0
    ]["node"]

    assert api.ok(NODE, {"id": user["id"]})["node"] == {
        "__typename": "MachineUser",
        "id": user["id"],
        "name": "Findable",
    }
    assert api.ok(NODE, {"id": key["id"]})["node"] == {
        "__typename": "ApiKey",
        "id": key["id"],
        "keyPrefix": key["keyPrefix"],
    }
    assert api.ok(NODE, {"id": event["id"]})["node"] == {
        "__typename": "AuditEvent",
        "id": event["id"],
        "action": "api_key.created",
    }


@pytest.mark.parametrize(
    "identifier",
    [
        "garbage",
        "",
        "mu_",
        "zz_01JD4Z1T8YQ0V5X2N7C3B6M9K4",
        factories.missing_id("MachineUser"),
        factories.missing_id("ApiKey"),
        factories.missing_id("AuditEvent"),
        factories.missing_id("Workspace"),
    ],
)
def test_an_id_that_names_nothing_is_not_found(api: GraphQLClient, identifier: str) -> None:
    answer = api(NODE, {"id": identifier})

    assert answer.status == 200
    assert answer.data == {"node": None}
    error = answer.error_at("node")
    assert error["extensions"] == {"code": "NOT_FOUND"}
    assert error["message"] == "Object not found."


def test_a_workspace_id_is_not_an_object_of_the_api(
    workspace: WorkspaceFixture, api: GraphQLClient
) -> None:
    answer = api(NODE, {"id": workspace.id})

    assert answer.error_at("node")["extensions"] == {"code": "NOT_FOUND"}


def test_node_needs_the_scopes_of_the_objects_own_query(workspace: WorkspaceFixture) -> None:
    api = workspace.client()
    user = factories.machine_user(api, "Guarded")
    reader = workspace.client(workspace.create_key(["api_keys:manage"]))

    answer = reader(NODE, {"id": user["id"]})

    assert answer.data == {"node": None}
    assert answer.error_at("node")["extensions"] == {
        "code": "FORBIDDEN",
        "requiredScopes": ["machine_users:manage"],
    }
