"""Introspection: on for authenticated keys by default; SUPPORTDESK_INTROSPECTION=false refuses
`__schema`, keeps `__type`, and stops suggestions from giving field names away."""

from __future__ import annotations

import httpx
import pytest

from tests.client import Answer, GraphQLClient
from tests.conftest import WorkspaceFixture, make_workspace
from tests.servers import RunningServer

SCHEMA_QUERY = "{ __schema { queryType { name } types { name } } }"
TYPE_QUERY = '{ __type(name: "ApiKey") { name fields { name } } }'
TYPO_FIELD = "{ machineUserz { totalCount } }"
TYPO_ARGUMENT = "{ machineUsers(frist: 1) { totalCount } }"
TYPO_INPUT = (
    "mutation ($input: CreateMachineUserInput!) "
    "{ createMachineUser(input: $input) { error { code } } }"
)


@pytest.fixture(scope="module")
def private_api(private_server: RunningServer) -> GraphQLClient:
    return make_workspace(private_server).client()


@pytest.fixture
def workspace(module_workspace: WorkspaceFixture) -> WorkspaceFixture:
    return module_workspace


def messages(answer: Answer) -> str:
    return " ".join(error["message"] for error in answer.errors)


def test_introspection_answers_authenticated_keys(api: GraphQLClient) -> None:
    data = api.ok(SCHEMA_QUERY)

    assert data["__schema"]["queryType"] == {"name": "Query"}
    assert "ApiKey" in {t["name"] for t in data["__schema"]["types"]}


def test_introspection_needs_a_key(workspace: WorkspaceFixture) -> None:
    response = httpx.post(f"{workspace.server.base_url}/graphql", json={"query": SCHEMA_QUERY})

    assert response.status_code == 401
    assert "data" not in response.json()


def test_turned_off_it_refuses_the_schema(private_api: GraphQLClient) -> None:
    answer = private_api(SCHEMA_QUERY)

    assert answer.codes == ["GRAPHQL_VALIDATION_FAILED"]
    assert "Introspection is turned off" in answer.errors[0]["message"]
    assert answer.data == {}


def test_turned_off_it_still_answers_type_and_typename(private_api: GraphQLClient) -> None:
    data = private_api.ok(TYPE_QUERY)

    assert data["__type"]["name"] == "ApiKey"
    assert "keyPrefix" in {field["name"] for field in data["__type"]["fields"]}
    assert private_api.ok("{ __typename }") == {"__typename": "Query"}


@pytest.mark.parametrize(
    ("document", "variables"),
    [
        (TYPO_FIELD, None),
        (TYPO_ARGUMENT, None),
        (TYPO_INPUT, {"input": {"name": "Robot", "descriptio": "typo"}}),
    ],
)
def test_suggestions_name_fields_only_while_introspection_is_on(
    api: GraphQLClient,
    private_api: GraphQLClient,
    document: str,
    variables: dict[str, object] | None,
) -> None:
    public = api(document, variables)
    private = private_api(document, variables)

    assert public.errors and private.errors
    assert "Did you mean" in messages(public)
    assert "Did you mean" not in messages(private)
    for name in ("machineUsers", "first", "description"):
        assert f"'{name}'" not in messages(private)
