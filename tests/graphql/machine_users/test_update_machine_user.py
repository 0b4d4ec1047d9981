"""updateMachineUser: change what is given; unknown or malformed ids are NOT_FOUND."""

from __future__ import annotations

import pytest

from tests import factories
from tests.client import GraphQLClient

UPDATE = """
mutation($input: UpdateMachineUserInput!) {
  updateMachineUser(input: $input) {
    machineUser { id name description createdAt updatedAt }
    error { code message fields { field code } }
  }
}
"""


def update(api: GraphQLClient, **values: object) -> dict[str, object]:
    return api.ok(UPDATE, {"input": values})["updateMachineUser"]


def test_renaming_keeps_the_description(api: GraphQLClient) -> None:
    user = factories.machine_user(api, "Old name", "Keeps this")

    payload = update(api, id=user["id"], name="New name")

    assert payload["error"] is None
    assert payload["machineUser"]["name"] == "New name"
    assert payload["machineUser"]["description"] == "Keeps this"
    assert payload["machineUser"]["createdAt"] == user["createdAt"]
    assert payload["machineUser"]["updatedAt"] >= user["updatedAt"]


def test_changing_the_description_keeps_the_name(api: GraphQLClient) -> None:
    user = factories.machine_user(api, "Stays", "Before")

    payload = update(api, id=user["id"], description="After")

    assert payload["machineUser"]["name"] == "Stays"
    assert payload["machineUser"]["description"] == "After"


def test_the_case_of_a_name_may_change(api: GraphQLClient) -> None:
    user = factories.machine_user(api, "helpdesk bot")

    payload = update(api, id=user["id"], name="Helpdesk Bot")

    assert payload["error"] is None
    assert payload["machineUser"]["name"] == "Helpdesk Bot"


def test_taking_another_machine_users_name_already_exists(api: GraphQLClient) -> None:
    factories.machine_user(api, "Taken")
    user = factories.machine_user(api, "Free")

    payload = update(api, id=user["id"], name="TAKEN")

    assert payload["machineUser"] is None
    assert payload["error"]["code"] == "ALREADY_EXISTS"


def test_an_empty_name_is_required(api: GraphQLClient) -> None:
    user = factories.machine_user(api, "Named")

    payload = update(api, id=user["id"], name=" ")

    assert payload["error"]["code"] == "VALIDATION_FAILED"
    assert payload["error"]["fields"] == [{"field": "name", "code": "REQUIRED"}]


@pytest.mark.parametrize(
    "identifier",
    [
        "garbage",
        "mu_123",
        "",
        factories.missing_id("MachineUser"),
        factories.missing_id("ApiKey"),
    ],
)
def test_an_id_that_names_no_machine_user_is_not_found(api: GraphQLClient, identifier: str) -> None:
    payload = update(api, id=identifier, name="Whatever")

    assert payload["machineUser"] is None
    assert payload["error"] == {
        "code": "NOT_FOUND",
        "message": "Machine user not found.",
        "fields": [],
    }


def test_updating_is_recorded_in_the_audit_log(api: GraphQLClient) -> None:
    user = factories.machine_user(api, "Before rename")
    update(api, id=user["id"], name="After rename")

    latest = api.ok("{ auditEvents(first: 1) { edges { node { action targetId data } } } }")[
        "auditEvents"
    ]["edges"][0]["node"]

    assert latest == {
        "action": "machine_user.updated",
        "targetId": user["id"],
        "data": {"name": "After rename"},
    }
