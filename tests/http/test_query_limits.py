"""Depth, aliases, directives, cost and time-out (CONTRACT section 8) through HTTP."""

from __future__ import annotations

from typing import Any

import pytest

from supportdesk.graphql.executor import Executor, RequestError
from supportdesk.graphql.limits import Limits
from supportdesk.graphql.schema import build_schema
from tests.client import Answer, GraphQLClient
from tests.conftest import WorkspaceFixture, make_workspace
from tests.servers import RunningServer

GRAPHQL_RESPONSE = "application/graphql-response+json"

# 1 + 100 × (edges + node + apiKeys + 1 × pageInfo) = 401 points per alias.
PAGE = (
    "machineUsers(first: {first}) "
    "{{ edges {{ node {{ apiKeys(first: 1) {{ pageInfo {{ hasNextPage }} }} }} }} }}"
)


def aliased(count: int, first: int | str = 100) -> str:
    return " ".join(f"a{i}: {PAGE.format(first=first)}" for i in range(count))


@pytest.fixture
def workspace(module_workspace: WorkspaceFixture) -> WorkspaceFixture:
    return module_workspace


def refusal(answer: Answer) -> dict[str, Any]:
    assert answer.status == 400, answer.body
    assert answer.codes == ["QUERY_TOO_COMPLEX"]
    assert "data" not in answer.body
    extensions: dict[str, Any] = answer.errors[0]["extensions"]
    return extensions


def data_statements(server: RunningServer) -> list[str]:
    """What the server ran beyond authenticating the key (and noting its use)."""
    return [
        s
        for s in server.statements.statements
        if "secret_hash" not in s
        and "SET last_used_at" not in s
        and s.strip().upper() not in ("BEGIN", "BEGIN IMMEDIATE", "COMMIT", "ROLLBACK")
    ]


def test_a_query_over_the_cost_limit_is_refused_before_it_touches_the_database(
    api: GraphQLClient, server: RunningServer
) -> None:
    api.ok("{ apiInfo }")
    server.statements.reset()

    refused = api(f"{{ {aliased(25)} }}")  # 25 × 401 = 10,025 points
    refused_statements = data_statements(server)
    server.statements.reset()
    allowed = api(f"{{ {aliased(24)} }}")  # 9,624 points

    assert refusal(refused) == {
        "code": "QUERY_TOO_COMPLEX",
        "limit": "cost",
        "cost": 10025,
        "maximum": 10000,
        "excess": 25,
    }
    assert "over the limit of 10,000 by 25" in refused.errors[0]["message"]
    assert refused.body["extensions"] == {"cost": {"requested": 10025, "limit": 10000}}
    assert refused_statements == []
    assert allowed.status == 200 and not allowed.errors, allowed.body
    assert allowed.body["extensions"] == {"cost": {"requested": 9624, "limit": 10000}}
    assert data_statements(server) != []


def test_the_cost_of_a_variable_page_size_is_worked_out_per_request(api: GraphQLClient) -> None:
    document = f"query ($n: Int) {{ {aliased(3, first='$n')} }}"

    small = api(document, {"n": 10})  # 3 × (1 + 10 × 4)
    default = api(document)  # 3 × (1 + 25 × 4)
    large = api(document, {"n": 1000})  # 3 × (1 + 1000 × 4)

    assert small.body["extensions"]["cost"]["requested"] == 123
    assert default.body["extensions"]["cost"]["requested"] == 303
    assert refusal(large)["cost"] == 12003


def test_every_answer_reports_its_cost_and_the_limit(api: GraphQLClient) -> None:
    answer = api(
        "{ machineUsers(first: 50) "
        "{ edges { node { apiKeys(first: 1) { totalCount } } } pageInfo { hasNextPage } } }"
    )

    # 1 + 50 × (edges + node + apiKeys + pageInfo)
    assert answer.body["extensions"] == {"cost": {"requested": 201, "limit": 10000}}


def test_a_query_nested_deeper_than_12_is_refused(api: GraphQLClient) -> None:
    nested = (
        "apiKeys { edges { node { machineUser { " * 2 + "apiKeys { totalCount }" + " } } } }" * 2
    )
    deep = f"{{ machineUsers {{ edges {{ node {{ {nested} }} }} }} }}"

    extensions = refusal(api(deep))

    assert extensions == {
        "code": "QUERY_TOO_COMPLEX",
        "limit": "depth",
        "depth": 13,
        "maximum": 12,
        "excess": 1,
    }


def test_more_than_50_aliases_are_refused_whatever_the_media_type(api: GraphQLClient) -> None:
    document = "{ " + " ".join(f"a{i}: apiInfo" for i in range(51)) + " }"

    for accept in ("application/json", GRAPHQL_RESPONSE):
        response = api.http.post(
            "/graphql", json={"query": document}, headers={**api.headers(), "Accept": accept}
        )
        answer = Answer(response.status_code, response.json(), response.headers)

        assert refusal(answer)["aliases"] == 51
    assert api("{ " + " ".join(f"a{i}: apiInfo" for i in range(50)) + " }").status == 200


def test_piled_up_directives_are_refused(api: GraphQLClient) -> None:
    document = "{ apiInfo " + "@include(if: true) " * 51 + "}"

    extensions = refusal(api(document))

    assert (extensions["limit"], extensions["directives"], extensions["maximum"]) == (
        "directives",
        51,
        50,
    )


def test_limit_errors_are_worked_out_once_per_document() -> None:
    executor = Executor(build_schema()._schema, Limits(max_depth=2))
    document = "{ machineUsers { edges { node { id } } } }"

    with pytest.raises(RequestError) as first:
        executor.prepare(document)
    with pytest.raises(RequestError) as second:
        executor.prepare(document)

    assert first.value is second.value
    assert first.value.errors[0]["extensions"]["depth"] == 4
    assert executor.prepare("{ apiInfo }") is executor.prepare("{ apiInfo }")


def test_a_request_that_runs_over_the_time_out_is_stopped(
    impatient_server: RunningServer,
) -> None:
    workspace = make_workspace(impatient_server)

    answer = workspace.client()("{ machineUsers { totalCount } }")
    quick = workspace.client()("{ __typename }")

    assert answer.status == 503
    assert answer.codes == ["QUERY_TOO_COMPLEX"]
    assert answer.errors[0]["extensions"]["limit"] == "timeout"
    assert "time-out" in answer.errors[0]["message"]
    assert quick.status == 200


def test_the_contract_example_costs_2151_on_the_real_schema(api: GraphQLClient) -> None:
    answer = api(
        "{ issues(first: 50) { edges { node { messages(first: 20) "
        "{ edges { node { body } } } } } } }"
    )

    assert answer.status == 200 and not answer.errors, answer.body
    assert answer.body["extensions"]["cost"] == {"requested": 2151, "limit": 10000}
