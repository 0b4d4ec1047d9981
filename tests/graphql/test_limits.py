"""The query limits of CONTRACT section 8, on a schema built here: cost, depth, aliases,
directives."""

from __future__ import annotations

from typing import Any

import pytest
from graphql import build_schema, get_introspection_query, parse, validate

from supportdesk.graphql.cost import cost_of
from supportdesk.graphql.limits import LimitExceeded, Limits, check_shape

SCHEMA = build_schema(
    """
    type Query {
      issues(first: Int, after: String): IssueConnection!
      issue(id: ID!): Issue
      node(id: ID!): Node
      version: String!
    }
    interface Node { id: ID! }
    type PageInfo { hasNextPage: Boolean!, endCursor: String }
    type IssueConnection { edges: [IssueEdge!]!, pageInfo: PageInfo!, totalCount: Int! }
    type IssueEdge { cursor: String!, node: Issue! }
    type Issue implements Node {
      id: ID!
      subject: String!
      messages(first: Int): MessageConnection!
      requester: Contact
      tags: [Tag!]!
    }
    type MessageConnection { edges: [MessageEdge!]!, pageInfo: PageInfo! }
    type MessageEdge { cursor: String!, node: Message! }
    type Message implements Node { id: ID!, body: String! }
    type Contact implements Node { id: ID!, email: String! }
    type Tag { name: String! }
    """
)

CONTRACT_EXAMPLE = (
    "{ issues(first: 50) { edges { node { messages(first: 20) { edges { node { body } } } } } } }"
)


def cost(document: str, variables: dict[str, Any] | None = None) -> int:
    parsed = parse(document)
    assert validate(SCHEMA, parsed) == []
    operations = [d for d in parsed.definitions if d.kind == "operation_definition"]
    return cost_of(SCHEMA, parsed, operations[0]).evaluate(variables)  # type: ignore[arg-type]


def test_the_contract_example_costs_2151() -> None:
    # 1 + 50 × (edges + node + messages + 20 × (edges + node)) = 1 + 50 × (3 + 20 × 2)
    assert cost(CONTRACT_EXAMPLE) == 2151


def test_a_document_with_literal_pages_has_a_constant_cost() -> None:
    parsed = parse(CONTRACT_EXAMPLE)

    measured = cost_of(SCHEMA, parsed, parsed.definitions[0])  # type: ignore[arg-type]

    assert measured.constant == 2151


@pytest.mark.parametrize(
    ("document", "expected"),
    [
        ("{ version }", 0),
        ("{ issues { totalCount } }", 1),
        ("{ issues { pageInfo { hasNextPage } } }", 1 + 25 * 1),
        ("{ issues(first: 10) { edges { cursor } pageInfo { endCursor } } }", 1 + 10 * 2),
        ("{ issue(id: 1) { subject requester { email } tags { name } } }", 3),
        ("{ issue(id: 1) { messages { edges { node { id } } } } }", 2 + 25 * 2),
        ("{ issues(first: 0) { edges { node { id } } } }", 1),
        ("{ __typename issue(id: 1) { __typename } }", 1),
        ("{ node(id: 1) { id ... on Issue { requester { id } } } }", 2),
    ],
)
def test_objects_cost_one_leaves_nothing_and_connections_multiply(
    document: str, expected: int
) -> None:
    assert cost(document) == expected


def test_a_page_size_from_a_variable_is_read_per_request() -> None:
    document = """
      query ($issues: Int, $messages: Int = 10) {
        issues(first: $issues) { edges { node { messages(first: $messages) {
          edges { node { body } } } } } }
      }"""

    assert cost(document, {"issues": 50, "messages": 20}) == 2151
    assert cost(document, {"issues": 50}) == 1 + 50 * (3 + 10 * 2)
    assert cost(document, {}) == 1 + 25 * (3 + 10 * 2)
    assert cost(document, {"issues": None, "messages": 0}) == 1 + 25 * 3


def test_fragments_cost_what_they_select_each_time_they_are_spread() -> None:
    document = """
      { issues(first: 50) { edges { node { ...Thread } } } }
      fragment Thread on Issue { messages(first: 20) { ...Bodies } }
      fragment Bodies on MessageConnection { edges { node { body } } }
    """

    assert cost(document) == 2151


def test_aliases_each_cost_in_full() -> None:
    assert cost("{ a: issues(first: 2) { totalCount } b: issues(first: 2) { totalCount } }") == 2


LIMITS = Limits(max_depth=4, max_aliases=3, max_cost=100, max_directives=2)


def refusal(document: str, limits: Limits = LIMITS) -> LimitExceeded:
    with pytest.raises(LimitExceeded) as refused:
        check_shape(parse(document), limits)
    return refused.value


def test_depth_counts_nested_fields_through_fragments() -> None:
    check_shape(parse("{ issues { edges { node { id } } } }"), LIMITS)

    refused = refusal(
        "{ issues { edges { node { ...Deep } } } } fragment Deep on Issue { requester { id } }"
    )

    assert (refused.limit, refused.value, refused.maximum) == ("depth", 5, 4)
    assert refused.extensions == {"limit": "depth", "depth": 5, "maximum": 4, "excess": 1}
    assert "over the limit of 4 by 1" in str(refused)


def test_aliases_are_counted_where_written_and_where_fragments_repeat_them() -> None:
    check_shape(parse("{ a: version b: version c: version }"), LIMITS)

    written = refusal("{ a: version b: version c: version d: version }")
    spread = refusal(
        "{ x: issue(id: 1) { ...F } y: issue(id: 2) { ...F } } fragment F on Issue { a: id }"
    )

    assert (written.limit, written.value) == ("aliases", 4)
    assert (spread.limit, spread.value) == ("aliases", 4)


def test_directives_are_counted() -> None:
    refused = refusal("{ version @skip(if: false) @include(if: true) @skip(if: false) }")

    assert (refused.limit, refused.value, refused.maximum) == ("directives", 3, 2)


def test_fragment_cycles_do_not_hang_the_measurement() -> None:
    # Validation refuses the cycle later; measuring must only terminate.
    check_shape(
        parse(
            "{ issue(id: 1) { ...A } } fragment A on Issue { ...B } fragment B on Issue { ...A }"
        ),
        LIMITS,
    )


def test_fragments_spread_exponentially_are_measured_in_linear_time() -> None:
    fragments = "".join(f"fragment F{i} on Issue {{ ...F{i + 1} ...F{i + 1} }}" for i in range(40))
    document = "{ issue(id: 1) { ...F0 } }" + fragments + "fragment F40 on Issue { a: id }"

    refused = refusal(document, Limits(max_aliases=1_000_000))

    assert refused.limit == "aliases"
    assert refused.value == 2**40


def test_the_standard_introspection_query_is_within_the_default_limits() -> None:
    check_shape(parse(get_introspection_query(descriptions=True)), Limits())
