"""The execution shortcut answers exactly what graphql-core's own execution answers: the
same data, the same errors at the same paths, the same null propagation."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import pytest
import strawberry
from graphql import ExecutionResult, execute, parse
from strawberry.permission import BasePermission
from strawberry.schema.schema import StrawberryGraphQLCoreExecutionContext

from supportdesk.graphql.execution import ExecutionContext
from supportdesk.graphql.resolution import resolve_fields


@strawberry.interface
class Thing:
    id: strawberry.ID


@strawberry.type
class Leaf(Thing):
    label: str
    count: int
    note: str | None


class Deny(BasePermission):
    message = "denied"

    def has_permission(self, source: Any, info: strawberry.Info, **kwargs: Any) -> bool:
        return False


@strawberry.type
class Twig:
    """No interface, so no type check: a null item must still be caught."""

    length: int


@strawberry.type
class Branch:
    leaf: Leaf
    maybe_leaf: Leaf | None
    leaves: list[Leaf]
    maybe_leaves: list[Leaf] | None
    loose_leaves: list[Leaf | None]
    twigs: list[Twig]
    # A plain field with a permission class: the shortcut must leave it to Strawberry.
    guarded: str | None = strawberry.field(default="top secret", permission_classes=[Deny])

    @strawberry.field
    async def later(self) -> Leaf | None:
        await asyncio.sleep(0)
        return self.leaf

    @strawberry.field
    async def broken(self) -> str | None:
        raise ValueError("broken on purpose")

    @strawberry.field
    def strict_broken(self) -> str:
        raise ValueError("strictly broken")


@dataclass
class Impostor:
    """Has every attribute a Leaf has, but is not one."""

    id: str = "x"
    label: str = "x"
    count: int = 1
    note: str | None = None


def leaf(n: int, **changes: Any) -> Any:
    values: dict[str, Any] = {"id": strawberry.ID(f"l{n}"), "label": f"leaf {n}", "count": n}
    values["note"] = None if n % 2 else f"note {n}"
    values.update(changes)
    made = Leaf(**{k: v for k, v in values.items() if k in ("id", "label", "count", "note")})
    for key, value in values.items():  # bypass the constructor for values of the wrong type
        object.__setattr__(made, key, value)
    return made


def branch(**changes: Any) -> Branch:
    values: dict[str, Any] = {
        "leaf": leaf(1),
        "maybe_leaf": None,
        "leaves": [leaf(n) for n in range(3)],
        "maybe_leaves": [leaf(5)],
        "loose_leaves": [leaf(6), None],
        "twigs": [Twig(length=1)],
    }
    values.update(changes)
    return Branch(**values)


@strawberry.type
class Query:
    branch: strawberry.Private[Branch]

    @strawberry.field
    def tree(self) -> Branch:
        return self.branch

    @strawberry.field
    def maybe_tree(self) -> Branch | None:
        return self.branch


def installed() -> Any:
    """The schema as the service installs its resolvers (nothing guarded here)."""
    schema = strawberry.Schema(query=Query)
    resolve_fields(schema, {})
    return schema._schema


SCHEMA = installed()

EVERYTHING = """
query Everything($skip: Boolean!) {
  tree {
    leaf { id label count note __typename }
    first: leaf { label }
    maybeLeaf { id }
    leaves { ...Parts count @skip(if: $skip) }
    maybeLeaves { id label }
    looseLeaves { id }
    twigs { length }
    guarded
    later { label note }
    broken
  }
  maybeTree { leaves { label } strictBroken }
}
fragment Parts on Leaf { id label ... on Thing { id } }
"""

CASES = {
    "plain": branch(),
    "a nullable leaf field is null": branch(leaf=leaf(1, note=None)),
    "a non-null leaf field is null": branch(leaves=[leaf(0), leaf(1, label=None)]),
    "a scalar refuses its value": branch(leaf=leaf(1, count="many")),
    "an enum-less string gets a number": branch(leaf=leaf(1, label=12)),
    "a non-null object is null": branch(leaf=None),
    "a non-null list is null": branch(leaves=None),
    "a nullable list is null": branch(maybe_leaves=None),
    "a non-null item is null": branch(leaves=[leaf(0), None]),
    "an item of another type": branch(leaves=[leaf(0), Impostor()]),
    "an object of another type": branch(leaf=Impostor()),
    "a list that is not a list": branch(leaves=leaf(0)),
    "an empty list": branch(leaves=[]),
    "a null twig": branch(twigs=[Twig(length=2), None]),
}


# The same parsed documents for every case, as the executor's document cache keeps them: what
# a document's requests share (plans, collected sub-fields) is then reused across cases.
DOCUMENTS = {
    "variables in directives": parse(EVERYTHING),
    "no variables in directives": parse(EVERYTHING.replace("$skip)", "false)")),
}
SHARED = {name: ExecutionContext.for_document(doc) for name, doc in DOCUMENTS.items()}


def run(
    context_class: type, source: Branch, skip: bool, document: str = "variables in directives"
) -> ExecutionResult:
    async def go() -> ExecutionResult:
        result = execute(
            SCHEMA,
            DOCUMENTS[document],
            root_value=Query(branch=source),
            variable_values={"skip": skip},
            executor_class=context_class,
        )
        return await result if asyncio.iscoroutine(result) else result  # type: ignore[return-value]

    return asyncio.run(go())


def shaped(result: ExecutionResult) -> tuple[Any, list[tuple[str, Any]]]:
    errors = sorted((e.message, e.path) for e in result.errors or [])
    return result.data, errors


@pytest.mark.parametrize("document", DOCUMENTS)
@pytest.mark.parametrize("skip", [False, True])
@pytest.mark.parametrize("case", CASES)
def test_the_shortcut_answers_as_graphql_core_does(case: str, skip: bool, document: str) -> None:
    expected = run(StrawberryGraphQLCoreExecutionContext, CASES[case], skip, document)
    alone = run(ExecutionContext, CASES[case], skip, document)
    shared = run(SHARED[document], CASES[case], skip, document)

    assert shaped(alone) == shaped(expected)
    assert shaped(shared) == shaped(expected)


def test_only_documents_without_variables_in_directives_share_collected_fields() -> None:
    for skip in (False, True, False):
        run(SHARED["variables in directives"], CASES["plain"], skip)
        run(SHARED["no variables in directives"], CASES["plain"], skip)

    assert SHARED["variables in directives"].document_plans.subfields is None
    assert SHARED["no variables in directives"].document_plans.subfields


def test_the_shortcut_reads_plain_fields_only() -> None:
    """It takes the fields `resolution.py` marks attribute reads, and no other."""
    run(SHARED["variables in directives"], CASES["plain"], False)
    plans = SHARED["variables in directives"].document_plans._plans.values()
    taken = {
        step.response_name
        for plan in plans
        if plan
        for step in plan
        if type(step).__name__ != "_Other"
    }

    assert {"label", "count", "leaf", "leaves", "twigs", "length"} <= taken
    assert not taken & {"guarded", "later", "broken", "strictBroken", "__typename"}


def test_the_cases_reach_errors_and_null_propagation() -> None:
    """The comparison above means something only if the cases provoke what it compares."""
    plain = run(ExecutionContext, CASES["plain"], False)
    broken = run(ExecutionContext, CASES["a non-null item is null"], False)

    assert plain.data is not None and plain.data["tree"]["leaves"][2]["label"] == "leaf 2"
    assert plain.data["tree"]["later"] == {"label": "leaf 1", "note": None}
    assert {(e.path or [])[-1] for e in plain.errors or []} == {
        "broken",
        "strictBroken",
        "guarded",
    }
    assert plain.data["tree"]["guarded"] is None
    assert plain.data["maybeTree"] is None  # strictBroken nulled its parent
    assert broken.data is None  # a null in a non-null list of a non-null tree
    assert any(e.path == ["tree", "leaves", 1] for e in broken.errors or [])
