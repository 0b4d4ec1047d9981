"""Generated documents, for every root field of the schema as it is (root fields that later
areas add are covered with no change here), sent with a Full-access key.

Valid queries and mutations may be refused (bad input, a limit), never fail inside: no 5xx,
no INTERNAL_SERVER_ERROR. Invalid documents get a 4xx with GraphQL errors, nothing else.
Seeded (derandomized) and bounded; SUPPORTDESK_FUZZ_EXAMPLES raises the budget for a longer
hunt.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from datetime import UTC

import httpx
import pytest
from graphql import (
    BooleanValueNode,
    DocumentNode,
    GraphQLObjectType,
    GraphQLSchema,
    IntValueNode,
    StringValueNode,
    ValueNode,
    is_scalar_type,
    is_specified_scalar_type,
    print_ast,
    visit,
)
from graphql.language import Visitor
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_graphql import Mode, mutations, queries

from supportdesk.graphql.schema import build_schema
from tests.conftest import make_workspace
from tests.servers import RunningServer

SCHEMA: GraphQLSchema = build_schema()._schema
QUERY_FIELDS = sorted(SCHEMA.query_type.fields) if SCHEMA.query_type else []
MUTATION_FIELDS = sorted(SCHEMA.mutation_type.fields) if SCHEMA.mutation_type else []
ROOT_FIELDS = len(QUERY_FIELDS) + len(MUTATION_FIELDS)

# Examples per run and backend, shared out among the root fields.
BUDGET = int(os.environ.get("SUPPORTDESK_FUZZ_EXAMPLES", "300"))
VALID_EXAMPLES = max(5, BUDGET // ROOT_FIELDS)
INVALID_EXAMPLES = max(3, BUDGET // 2 // ROOT_FIELDS)
GRAPHQL_RESPONSE = "application/graphql-response+json"
REQUEST_ERRORS = {
    "GRAPHQL_PARSE_FAILED",
    "GRAPHQL_VALIDATION_FAILED",
    "BAD_USER_INPUT",
    "QUERY_TOO_COMPLEX",
}


def literals() -> st.SearchStrategy[ValueNode]:
    """Values for any custom scalar (DateTime, JSON, those to come): timestamps, text,
    numbers, booleans; wrong ones must be refused cleanly too."""
    timestamps = st.datetimes(timezones=st.just(UTC)).map(lambda t: t.isoformat())
    return st.one_of(
        timestamps.map(lambda text: StringValueNode(value=text)),
        st.text(max_size=50).map(lambda text: StringValueNode(value=text)),
        st.integers(-(2**31), 2**31 - 1).map(lambda n: IntValueNode(value=str(n))),
        st.booleans().map(lambda b: BooleanValueNode(value=b)),
    )


# Strings that storage, validation or encoding get wrong when nobody thought of them.
HOSTILE_TEXT = st.sampled_from(
    ["\x00", "a\x00b", "", " ", "\n\t", "x" * 70_000, "\U0001f4a5", "\u202e", "%s%n",
     "' OR 1=1 --", "\\", "mu_01ARZ3NDEKTSV4RRFFQ69G5FAV", "c1:", "YzE6AA"]
)  # fmt: skip


class _HostileStrings(Visitor):
    def __init__(self, draw: st.DrawFn) -> None:
        super().__init__()
        self.draw = draw

    def enter_string_value(self, node: StringValueNode, *_args: object) -> StringValueNode | None:
        if self.draw(st.integers(0, 2)) == 0:
            return StringValueNode(value=self.draw(HOSTILE_TEXT))
        return None


def printed(documents: st.SearchStrategy[DocumentNode]) -> st.SearchStrategy[str]:
    """The generated documents, some of their strings swapped for hostile ones."""

    @st.composite
    def swap(draw: st.DrawFn) -> str:
        return print_ast(visit(draw(documents), _HostileStrings(draw)))

    return swap()


CUSTOM_SCALARS = {
    name: literals()
    for name, named in SCHEMA.type_map.items()
    if is_scalar_type(named) and not is_specified_scalar_type(named) and not name.startswith("__")
}


@pytest.fixture(scope="module")
def fuzz_client(fuzz_server: RunningServer) -> Iterator[httpx.Client]:
    workspace = make_workspace(fuzz_server, "Fuzzed workspace")
    with httpx.Client(
        base_url=fuzz_server.base_url,
        headers={"Authorization": f"Bearer {workspace.key}"},
        timeout=30,
    ) as client:
        yield client


def fuzz(strategy: st.SearchStrategy[str], examples: int, check: Callable[[str], None]) -> None:
    @settings(
        max_examples=examples,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        print_blob=True,
    )
    @given(document=strategy)
    def run(document: str) -> None:
        check(document)

    run()


def keep(document: DocumentNode) -> DocumentNode:
    return document


def never_fails_inside(client: httpx.Client) -> Callable[[str], None]:
    def check(document: str) -> None:
        import time

        t = time.perf_counter()
        response = client.post("/graphql", json={"query": document})
        if time.perf_counter() - t > 0.2:
            print("SLOW", time.perf_counter() - t, document[:300], response.text[:300])
        assert response.status_code < 500, (response.status_code, response.text, document)
        body = response.json()
        codes = [error["extensions"]["code"] for error in body.get("errors", [])]
        assert "INTERNAL_SERVER_ERROR" not in codes, (body, document)
        assert response.status_code in (200, 400), (response.status_code, body, document)

    return check


def refused_cleanly(client: httpx.Client) -> Callable[[str], None]:
    def check(document: str) -> None:
        response = client.post(
            "/graphql", json={"query": document}, headers={"Accept": GRAPHQL_RESPONSE}
        )
        assert 400 <= response.status_code < 500, (response.status_code, response.text, document)
        codes = {error["extensions"]["code"] for error in response.json()["errors"]}
        assert codes and codes <= REQUEST_ERRORS, (codes, document)

    return check


@pytest.mark.parametrize("field", QUERY_FIELDS)
def test_generated_queries_never_fail_inside(fuzz_client: httpx.Client, field: str) -> None:
    strategy = queries(SCHEMA, fields=[field], custom_scalars=CUSTOM_SCALARS, print_ast=keep)
    fuzz(printed(strategy), VALID_EXAMPLES, never_fails_inside(fuzz_client))


@pytest.mark.parametrize("field", MUTATION_FIELDS)
def test_generated_mutations_never_fail_inside(fuzz_client: httpx.Client, field: str) -> None:
    strategy = mutations(SCHEMA, fields=[field], custom_scalars=CUSTOM_SCALARS, print_ast=keep)
    fuzz(printed(strategy), VALID_EXAMPLES, never_fails_inside(fuzz_client))


def with_arguments(root: GraphQLObjectType | None) -> list[str]:
    """Fields a document can get wrong beyond their selection: those with arguments."""
    return sorted(name for name, field in (root.fields if root else {}).items() if field.args)


@pytest.mark.parametrize(
    ("kind", "field"),
    [("query", f) for f in with_arguments(SCHEMA.query_type)]
    + [("mutation", f) for f in with_arguments(SCHEMA.mutation_type)],
)
def test_invalid_documents_are_refused_cleanly(
    fuzz_client: httpx.Client, kind: str, field: str
) -> None:
    generate = queries if kind == "query" else mutations
    strategy = generate(SCHEMA, fields=[field], custom_scalars=CUSTOM_SCALARS, mode=Mode.NEGATIVE)
    fuzz(strategy, INVALID_EXAMPLES, refused_cleanly(fuzz_client))


def test_text_that_is_no_document_is_refused_cleanly(fuzz_client: httpx.Client) -> None:
    noise = st.one_of(
        st.text(min_size=1, max_size=200),
        st.text(alphabet="{}()[]:$@!.=,\"' \n#query mutation fragment on ...", min_size=1),
    ).filter(lambda text: text.strip() != "")
    fuzz(noise, INVALID_EXAMPLES * 3, refused_cleanly(fuzz_client))
