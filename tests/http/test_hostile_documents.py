"""Documents sent to spend the server's time, memory or stack, as an outside review sent
them: each is refused with one 400 error, or answered at a cost that bounds its work."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from graphql import get_introspection_query

from supportdesk.graphql.cost import introspection_bounds
from supportdesk.graphql.schema import build_schema
from tests import factories
from tests.client import GraphQLClient
from tests.conftest import WorkspaceFixture
from tests.http.test_query_limits import refusal


@pytest.fixture
def legacy(workspace: WorkspaceFixture) -> GraphQLClient:
    return workspace.client(workspace.create_key(["issues:create"], legacy=True))


@pytest.fixture
def owner_with_15_keys(api: GraphQLClient) -> str:
    owner = factories.machine_user(api, "Fifteen keys")["id"]
    for n in range(15):
        factories.api_key(api, owner, ["issues:read"], name=f"k{n}")
    return owner


def _keys_within_keys(levels: int, first: str = "") -> str:
    inner = "id"
    for _ in range(levels):
        inner = f"apiKeys{first} {{ edges {{ node {{ machineUser {{ {inner} }} }} }} }}"
    return inner


def _of_machine_user(selection: str) -> str:
    return f"query($id: ID!) {{ node(id: $id) {{ ... on MachineUser {{ {selection} }} }} }}"


def test_the_keys_of_a_machine_user_are_a_connection_the_cost_multiplies(
    api: GraphQLClient, owner_with_15_keys: str
) -> None:
    as_reported = (
        "query($id: ID!) { node(id: $id) { ... on MachineUser { apiKeys { machineUser { apiKeys "
        "{ machineUser { apiKeys { machineUser { apiKeys { machineUser { apiKeys { id } } } } } } "
        "} } } } } }"
    )
    deep = _of_machine_user(_keys_within_keys(4))
    wide = _of_machine_user(_keys_within_keys(2, "(first: 100)"))
    small = _of_machine_user(_keys_within_keys(2, "(first: 15)"))

    old_shape = api(as_reported, {"id": owner_with_15_keys})
    too_deep = api(deep, {"id": owner_with_15_keys})
    too_wide = api(wide, {"id": owner_with_15_keys})
    answered = api(small, {"id": owner_with_15_keys})

    assert old_shape.codes and set(old_shape.codes) == {"GRAPHQL_VALIDATION_FAILED"}
    assert refusal(too_deep)["limit"] == "depth"
    # node + apiKeys + 100 × (edges + node + machineUser + apiKeys + 100 × 3)
    assert refusal(too_wide)["cost"] == 2 + 100 * (4 + 100 * 3)
    assert answered.status == 200 and not answered.errors
    edges = answered.data["node"]["apiKeys"]["edges"]
    assert len(edges) == 15
    assert len(edges[0]["node"]["machineUser"]["apiKeys"]["edges"]) == 15
    # node + apiKeys + 15 × (edges + node + machineUser + apiKeys + 15 × (edges + node + machineUser))
    assert answered.body["extensions"]["cost"]["requested"] == 2 + 15 * (4 + 15 * 3)


def test_fifty_aliased_schemas_are_refused(api: GraphQLClient) -> None:
    document = "{ " + " ".join(f"s{i}: __schema {{ types {{ name }} }}" for i in range(50)) + " }"

    extensions = refusal(api(document))

    assert extensions["limit"] == "introspection"
    assert extensions["introspection"] == 50 and extensions["maximum"] == 1


def test_the_full_introspection_query_still_answers(api: GraphQLClient) -> None:
    answer = api(get_introspection_query(descriptions=True))

    assert answer.status == 200 and not answer.errors
    assert answer.data["__schema"]["queryType"]["name"] == "Query"


def test_the_lists_of_type_introspection_are_costed_by_the_schemas_widest(
    api: GraphQLClient,
) -> None:
    one = '__type(name: "Query") { fields { args { type { fields { args { name } } } } } }'
    document = "{ " + " ".join(f"t{i}: {one}" for i in range(50)) + " }"
    bounds = introspection_bounds(build_schema()._schema)
    fields, args = bounds[("__Type", "fields")], bounds[("__Field", "args")]

    alone = api("{ " + one + " }")
    extensions = refusal(api(document))

    # __type + fields + F × (args + A × (type + fields + F × args))
    expected = 2 + fields * (1 + args * (2 + fields))
    assert alone.status == 200 and alone.body["extensions"]["cost"]["requested"] == expected
    assert extensions["limit"] == "cost" and extensions["cost"] == 50 * expected


def test_a_chain_of_330_fragments_is_refused_without_a_crash(
    legacy: GraphQLClient, caplog: pytest.LogCaptureFixture
) -> None:
    chain = " ".join(f"fragment F{i} on Query {{ ...F{i + 1} }}" for i in range(330))
    document = f"query {{ ...F0 }} {chain} fragment F330 on Query {{ __typename }}"

    extensions = refusal(legacy(document))

    assert extensions["limit"] == "nesting" and extensions["maximum"] == 64
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


def test_selections_nested_300_deep_do_not_parse(legacy: GraphQLClient) -> None:
    answer = legacy("{ " + "a { " * 300 + "b" + " }" * 301)

    assert answer.codes == ["GRAPHQL_PARSE_FAILED"]
    assert answer.errors[0]["message"] == (
        "Syntax Error: Document is nested too deeply. Parsing aborted."
    )


def test_a_chain_of_fragments_within_the_limit_is_answered(api: GraphQLClient) -> None:
    chain = " ".join(f"fragment F{i} on Query {{ ...F{i + 1} }}" for i in range(40))
    document = f"query {{ ...F0 }} {chain} fragment F40 on Query {{ __typename }}"

    assert api.ok(document) == {"__typename": "Query"}


def test_variables_nested_400_deep_are_refused_without_a_crash(
    legacy: GraphQLClient, caplog: pytest.LogCaptureFixture
) -> None:
    deep: Any = []
    for _ in range(400):
        deep = [deep]

    extensions = refusal(legacy("{ __typename }", {"x": deep}))

    assert extensions["limit"] == "variableNesting" and extensions["maximum"] == 32
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


def test_variables_within_the_nesting_limit_are_taken(api: GraphQLClient) -> None:
    deep: Any = "x"
    for _ in range(30):
        deep = [deep]

    assert api.ok("{ __typename }", {"x": deep}) == {"__typename": "Query"}
