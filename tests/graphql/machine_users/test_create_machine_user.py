"""createMachineUser: a new API principal, validation, unique names ignoring case."""

from __future__ import annotations

import re

import pytest

from tests import factories
from tests.client import GraphQLClient
from tests.conftest import WorkspaceFixture

TIMESTAMP = re.compile(r"\A\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\Z")


def create(api: GraphQLClient, **values: object) -> dict[str, object]:
    return api.ok(factories.CREATE_MACHINE_USER, {"input": values})["createMachineUser"]


def test_a_machine_user_is_created_with_an_id_and_timestamps(api: GraphQLClient) -> None:
    payload = create(api, name="  Billing sync ", description="Pushes invoices")

    assert payload["error"] is None
    user = payload["machineUser"]
    assert user["id"].startswith("mu_")
    assert user["name"] == "Billing sync"
    assert user["description"] == "Pushes invoices"
    assert user["managed"] is False
    assert TIMESTAMP.match(user["createdAt"])
    assert user["updatedAt"] == user["createdAt"]


def test_the_description_is_optional(api: GraphQLClient) -> None:
    payload = create(api, name="CRM")

    assert payload["error"] is None
    assert payload["machineUser"]["description"] == ""


@pytest.mark.parametrize("name", ["", "   "])
def test_an_empty_name_is_required(api: GraphQLClient, name: str) -> None:
    payload = create(api, name=name)

    assert payload["machineUser"] is None
    assert payload["error"]["code"] == "VALIDATION_FAILED"
    assert payload["error"]["fields"] == [{"field": "name", "code": "REQUIRED"}]
    assert payload["error"]["message"]


def test_too_long_values_are_named_together(api: GraphQLClient) -> None:
    payload = create(api, name="n" * 101, description="d" * 501)

    assert payload["error"]["code"] == "VALIDATION_FAILED"
    assert payload["error"]["fields"] == [
        {"field": "name", "code": "TOO_LONG"},
        {"field": "description", "code": "TOO_LONG"},
    ]


def test_names_are_unique_in_a_workspace_ignoring_case(api: GraphQLClient) -> None:
    factories.machine_user(api, "Zapier")

    payload = create(api, name="zAPIER")

    assert payload["machineUser"] is None
    assert payload["error"]["code"] == "ALREADY_EXISTS"
    names = [
        e["node"]["name"]
        for e in api.ok("{ machineUsers { edges { node { name } } } }")["machineUsers"]["edges"]
    ]
    assert names.count("Zapier") == 1 and "zAPIER" not in names


def test_names_compare_by_case_folding(api: GraphQLClient) -> None:
    factories.machine_user(api, "Straße sync")

    payload = create(api, name="STRASSE SYNC")

    assert payload["error"]["code"] == "ALREADY_EXISTS"


def test_a_name_of_100_characters_that_grow_when_folded_is_accepted(api: GraphQLClient) -> None:
    # "ß" folds to "ss" and "ΐ" to three characters: the folded form may be longer.
    for name in ("ß" * 100, "ΐ" * 100):
        assert create(api, name=name)["machineUser"]["name"] == name


@pytest.mark.parametrize("field", ["name", "description"])
def test_a_nul_character_is_bad_user_input_and_creates_nothing(
    api: GraphQLClient, field: str
) -> None:
    values = {"name": "Fine", field: "bad\u0000text"}

    answer = api(factories.CREATE_MACHINE_USER, {"input": values})

    assert answer.status == 200
    assert answer.codes == ["BAD_USER_INPUT"]
    assert api.ok("{ machineUsers { totalCount } }")["machineUsers"]["totalCount"] == 1


def test_creating_is_recorded_in_the_audit_log(api: GraphQLClient) -> None:
    user = factories.machine_user(api, "Audited")

    latest = api.ok(
        "{ auditEvents(first: 1) { edges { node { action targetType targetId actorType data } } } }"
    )["auditEvents"]["edges"][0]["node"]

    assert latest == {
        "action": "machine_user.created",
        "targetType": "MachineUser",
        "targetId": user["id"],
        "actorType": "machine_user",
        "data": {"name": "Audited"},
    }


def test_a_key_without_machine_users_manage_is_forbidden(workspace: WorkspaceFixture) -> None:
    client = workspace.client(workspace.create_key(["api_keys:manage", "issues:read"]))

    answer = client(factories.CREATE_MACHINE_USER, {"input": {"name": "Nope"}})

    assert answer.status == 200
    assert answer.data == {"createMachineUser": None}
    error = answer.error_at("createMachineUser")
    assert error["extensions"] == {"code": "FORBIDDEN", "requiredScopes": ["machine_users:manage"]}
