"""Depth, aliases, directives, cost and time-out (CONTRACT section 8) through HTTP."""

from __future__ import annotations

import time
from traceback import extract_tb
from typing import Any

import pytest
from graphql import GraphQLError, Source, get_introspection_query, parse
from graphql.language import Lexer, TokenKind

from supportdesk.graphql.documents import DocumentRunner, RequestError
from supportdesk.graphql.limits import LimitExceeded, Limits, check_text
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


def _server_milliseconds(document: str) -> tuple[float, RequestError]:
    """The least CPU time of three fresh executors refusing the document, and the refusal."""
    times, refusals = [], []
    for _ in range(3):
        executor = DocumentRunner(build_schema()._schema)
        started = time.thread_time()
        with pytest.raises(RequestError) as refused:
            executor.prepare(document)
        times.append((time.thread_time() - started) * 1000)
        refusals.append(refused.value)
    return min(times), refusals[0]


def test_a_thousand_directives_get_one_error_before_parsing(api: GraphQLClient) -> None:
    document = "{ apiInfo " + "@include(if: true) " * 1000 + "}"

    extensions = refusal(api(document))
    milliseconds, refused = _server_milliseconds(document)

    assert (extensions["limit"], extensions["directives"], extensions["maximum"]) == (
        "directives",
        1000,
        50,
    )
    assert len(refused.errors) == 1 and milliseconds < 50


def test_thirty_thousand_tokens_get_one_error_before_parsing(api: GraphQLClient) -> None:
    document = "{ " + "a " * 30_000 + "}"  # within the length limit

    extensions = refusal(api(document))
    milliseconds, refused = _server_milliseconds(document)

    assert (extensions["limit"], extensions["maximum"]) == ("tokens", 10_000)
    assert "10,000 tokens" in refused.errors[0]["message"]
    assert len(refused.errors) == 1 and milliseconds < 50


def test_a_query_over_64_kib_is_refused_before_parsing_whatever_its_variables(
    api: GraphQLClient,
) -> None:
    long = "{ apiInfo }\n#" + "x" * 64 * 1024
    multibyte = "{ apiInfo }\n#" + "é" * 33_000  # 66,000 bytes in 33,000 characters
    variables_apart = "query($id: ID!) { issue(id: $id) { id } }"

    extensions = refusal(api(long))
    in_bytes = refusal(api(multibyte))
    milliseconds, refused = _server_milliseconds(long)
    answered = api(variables_apart, {"id": "iss_" + "0" * 500_000})

    assert extensions == {
        "code": "QUERY_TOO_COMPLEX",
        "limit": "query_bytes",
        "query_bytes": len(long),
        "maximum": 65536,
        "excess": len(long) - 65536,
    }
    assert "send large values as variables" in refused.errors[0]["message"]
    assert in_bytes["query_bytes"] == len(multibyte.encode())
    assert len(refused.errors) == 1 and milliseconds < 5
    assert answered.status == 200 and "QUERY_TOO_COMPLEX" not in answered.codes


def test_errors_quote_no_more_than_100_characters_of_a_literal(api: GraphQLClient) -> None:
    literal = "A" * 10_000
    does_not_parse = api(f'{{ apiInfo "{literal}" }}')
    does_not_fit = api(f'{{ issues(first: "{literal}") {{ totalCount }} }}')
    unknown_name = api(f"{{ {literal} }}")

    for answer, code in [
        (does_not_parse, "GRAPHQL_PARSE_FAILED"),
        (does_not_fit, "GRAPHQL_VALIDATION_FAILED"),
        (unknown_name, "GRAPHQL_VALIDATION_FAILED"),
    ]:
        assert code in answer.codes, answer.body
        message = answer.errors[0]["message"]
        assert "A" * 100 + "…" in message and "A" * 101 not in message, message
    assert does_not_parse.errors[0]["message"] == (
        f"Syntax Error: Expected Name, found String '{'A' * 100}…'."
    )


def test_ten_unknown_directives_on_one_field_get_one_error(api: GraphQLClient) -> None:
    document = "{ __typename " + "@aa " * 10 + "}"

    extensions = refusal(api(document))

    assert (extensions["limit"], extensions["directives"], extensions["maximum"]) == (
        "directives",
        10,
        5,
    )


def test_five_directives_on_one_field_are_left_to_validation(api: GraphQLClient) -> None:
    answer = api("{ __typename " + " ".join(f"@d{i}" for i in range(5)) + " }")

    assert answer.codes == ["GRAPHQL_VALIDATION_FAILED"] * 5


def test_a_document_gets_at_most_20_validation_errors(api: GraphQLClient) -> None:
    answer = api("{ " + " ".join(f"unknown{i}" for i in range(30)) + " }")

    assert answer.codes == ["GRAPHQL_VALIDATION_FAILED"] * 20
    assert "aborted" in answer.errors[-1]["message"]


def test_the_token_count_before_parsing_agrees_with_the_parser() -> None:
    document = get_introspection_query(descriptions=True) + ' { a(x: -1.5e3, y: "s\\"t@") }'
    lexer = Lexer(Source(document))
    tokens = 0
    while lexer.advance().kind is not TokenKind.EOF:
        tokens += 1

    DocumentRunner(build_schema()._schema, Limits(max_tokens=tokens)).prepare(
        get_introspection_query(descriptions=True)
    )
    with pytest.raises(LimitExceeded) as refused:
        check_text(document, Limits(max_tokens=tokens - 1))
    check_text(document, Limits(max_tokens=tokens))

    assert refused.value.limit == "tokens"


def test_the_parser_still_names_its_token_limit_as_graphql_core_words_it() -> None:
    with pytest.raises(GraphQLError, match=r"^Syntax Error: Document contains more than 3 tokens"):
        parse("{ a b c d }", max_tokens=3)


def test_limit_errors_are_worked_out_once_per_document() -> None:
    executor = DocumentRunner(build_schema()._schema, Limits(max_depth=2))
    document = "{ machineUsers { edges { node { id } } } }"

    with pytest.raises(RequestError) as first:
        executor.prepare(document)
    for _ in range(3):
        with pytest.raises(RequestError) as again:
            executor.prepare(document)

    assert first.value.errors is again.value.errors
    # Each request gets a refusal of its own: one raised again and again would keep the
    # frames of every request it refused in its traceback.
    assert again.value is not first.value
    assert len(extract_tb(again.value.__traceback__)) == len(extract_tb(first.value.__traceback__))
    assert first.value.errors[0]["extensions"]["depth"] == 4
    assert executor.prepare("{ apiInfo }") is executor.prepare("{ apiInfo }")


def test_a_request_that_runs_over_the_time_out_is_stopped(
    impatient_server: RunningServer,
) -> None:
    workspace = make_workspace(impatient_server)

    answer = workspace.client()("{ machineUsers { totalCount } }")
    quick = workspace.client()("{ __typename }")

    assert answer.status == 503
    assert answer.codes == ["TIMEOUT"]
    assert "data" not in answer.body
    assert "time-out" in answer.errors[0]["message"]
    assert quick.status == 200


def test_a_compiled_read_over_the_time_out_is_run_once_and_keeps_its_rate_limit(
    impatient_server: RunningServer,
) -> None:
    workspace = make_workspace(impatient_server)
    api = workspace.client()
    compiled_read = "{ issues(first: 1) { totalCount } }"

    first = api(compiled_read)  # the key is looked up, then the statement runs over
    counter = impatient_server.statements
    counter.reset()
    second = api(compiled_read)  # the key is remembered: its one statement runs over

    for answer in (first, second):
        assert answer.status == 503 and answer.codes == ["TIMEOUT"], answer.body
    remaining = [int(answer.headers["x-ratelimit-remaining"]) for answer in (first, second)]
    assert remaining[1] == remaining[0] - 1
    # Not run again after a lookup. (A time-out this short may stop it before it is sent.)
    ran = counter.of_requests()
    assert len(ran) <= 1 and all("issues" in s for s in ran), counter.statements


def test_the_contract_example_costs_2151_on_the_real_schema(api: GraphQLClient) -> None:
    answer = api(
        "{ issues(first: 50) { edges { node { messages(first: 20) "
        "{ edges { node { body } } } } } } }"
    )

    assert answer.status == 200 and not answer.errors, answer.body
    assert answer.body["extensions"]["cost"] == {"requested": 2151, "limit": 10000}
