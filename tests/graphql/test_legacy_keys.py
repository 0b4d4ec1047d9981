"""Legacy svc_live_ keys, made with `supportdesk keys create --legacy`, may call createIssue
and nothing else, apiInfo included (seed section 5.8, CONTRACT section 2)."""

from __future__ import annotations

from typing import Any

import pytest
from graphql import (
    GraphQLArgument,
    GraphQLEnumType,
    GraphQLField,
    GraphQLInputObjectType,
    GraphQLInputType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLScalarType,
    get_named_type,
    is_leaf_type,
    is_required_argument,
    is_required_input_field,
)

from supportdesk.graphql.schema import build_schema
from tests.cli.runner import json_of, operator_url, supportdesk
from tests.conftest import WorkspaceFixture

SCHEMA = build_schema()._schema
SAMPLE_SCALARS: dict[str, Any] = {
    "ID": "x",
    "String": "x",
    "Int": 1,
    "Float": 1.0,
    "Boolean": True,
    "DateTime": "2099-01-01T00:00:00.000Z",
    "JSON": {},
}
CREATE_ISSUE = """
mutation($input: CreateIssueInput!) {
  createIssue(input: $input) { issue { id ticketNumber status } error { code message } }
}
"""


def sample(input_type: GraphQLInputType) -> Any:
    """A value of the type that passes GraphQL's own checks (the domain may still refuse it)."""
    if isinstance(input_type, GraphQLNonNull):
        return sample(input_type.of_type)
    if isinstance(input_type, GraphQLList):
        return [sample(input_type.of_type)]
    if isinstance(input_type, GraphQLEnumType):
        return next(iter(input_type.values))
    if isinstance(input_type, GraphQLInputObjectType):
        return {
            name: sample(field.type)
            for name, field in input_type.fields.items()
            if is_required_input_field(field)
        }
    assert isinstance(input_type, GraphQLScalarType)
    return SAMPLE_SCALARS.get(input_type.name, "x")


def document(kind: str, name: str, field: GraphQLField) -> tuple[str, dict[str, Any]]:
    """The smallest document calling a root field, with its required arguments as variables."""
    required: dict[str, GraphQLArgument] = {
        arg: spec for arg, spec in field.args.items() if is_required_argument(spec)
    }
    declared = ", ".join(f"${arg}: {spec.type}" for arg, spec in required.items())
    passed = ", ".join(f"{arg}: ${arg}" for arg in required)
    header = f"{kind}({declared})" if declared else kind
    call = f"{name}({passed})" if passed else name
    selection = "" if is_leaf_type(get_named_type(field.type)) else " { __typename }"
    query = f"{header} {{ {call}{selection} }}"
    return query, {arg: sample(spec.type) for arg, spec in required.items()}


def root_fields() -> list[tuple[str, str, GraphQLField]]:
    roots = [("query", SCHEMA.query_type), ("mutation", SCHEMA.mutation_type)]
    return [
        (kind, name, field)
        for kind, root in roots
        if root is not None
        for name, field in root.fields.items()
    ]


@pytest.fixture
def legacy_key(workspace: WorkspaceFixture) -> str:
    made = json_of(
        supportdesk(
            "keys",
            "create",
            "--workspace",
            workspace.id,
            "--name",
            "REST v1 bridge",
            "--legacy",
            "--json",
            database_url=operator_url(workspace.server.database_url),
        )
    )
    assert made["api_key"].startswith("svc_live_")
    assert made["key_prefix"] == made["api_key"][:12]
    assert made["scopes"] == ["issues:create"]
    return str(made["api_key"])


def test_every_root_field_but_create_issue_is_forbidden(
    workspace: WorkspaceFixture, legacy_key: str
) -> None:
    client = workspace.client(legacy_key)
    fields = [(kind, name, field) for kind, name, field in root_fields() if name != "createIssue"]
    assert {"apiInfo", "machineUsers", "createApiKey", "node", "issue"} <= {f[1] for f in fields}

    for kind, name, field in fields:
        query, variables = document(kind, name, field)
        answer = client(query, variables)
        assert answer.status == 200, (query, answer.body)
        assert answer.data == {name: None}, (query, answer.body)
        error = answer.error_at(name)
        assert error["extensions"]["code"] == "FORBIDDEN", (query, answer.body)
        assert "svc_mk_" in error["message"]


def test_api_info_is_forbidden_too(workspace: WorkspaceFixture, legacy_key: str) -> None:
    answer = workspace.client(legacy_key)("{ apiInfo }")

    assert answer.data == {"apiInfo": None}
    assert answer.error_at("apiInfo")["extensions"] == {"code": "FORBIDDEN", "requiredScopes": []}


def test_create_issue_works_and_shows_the_new_issue(
    workspace: WorkspaceFixture, legacy_key: str
) -> None:
    variables = {
        "input": {
            "subject": "Sent over the old API",
            "body": "Hello",
            "requesterEmail": "legacy@example.com",
            "priority": "high",
        }
    }

    payload = workspace.client(legacy_key).ok(CREATE_ISSUE, variables)["createIssue"]

    assert payload["error"] is None
    assert payload["issue"]["id"].startswith("iss_")
    assert payload["issue"]["ticketNumber"] == 1
    assert payload["issue"]["status"] == "new"


def test_a_legacy_key_is_listed_as_legacy(workspace: WorkspaceFixture, legacy_key: str) -> None:
    keys = workspace.client().ok("{ apiKeys { edges { node { keyPrefix kind scopes } } } }")

    listed = [edge["node"] for edge in keys["apiKeys"]["edges"]]
    assert {"keyPrefix": legacy_key[:12], "kind": "legacy", "scopes": ["issues:create"]} in listed
