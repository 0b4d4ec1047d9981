"""Every read document of the test suite, answered by the compiled path and by the
executor, with random variables and keys of random scopes: the answers must not differ
(issue #16)."""

from __future__ import annotations

import random

from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    InlineFragmentNode,
    OperationDefinitionNode,
    SelectionSetNode,
    parse,
)

from supportdesk.graphql.compiled import LIST_ROOTS, SINGLE_ROOTS
from tests.graphql.compiled.compare import Tally
from tests.graphql.compiled.conftest import Differential
from tests.graphql.compiled.harvest import Values, suite_documents

COVERED_ROOTS = frozenset({*SINGLE_ROOTS, *LIST_ROOTS, "__typename"})
# Variable sets per document: more for those whose root fields compiled answers cover
# (the others take the executor both ways, unless the compiled path wrongly claims them).
ROUNDS_COVERED = 3
ROUNDS_OTHER = 1
KEYS_PER_ROUND = 2


def _roots(document: DocumentNode, operation_name: str | None) -> set[str]:
    """The root fields of the operation, through fragments."""
    fragments = {
        d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)
    }
    found: set[str] = set()

    def visit(selection_set: SelectionSetNode) -> None:
        for selection in selection_set.selections:
            if isinstance(selection, FieldNode):
                found.add(selection.name.value)
            elif isinstance(selection, InlineFragmentNode):
                visit(selection.selection_set)
            elif isinstance(selection, FragmentSpreadNode):
                visit(fragments[selection.name.value].selection_set)

    for definition in document.definitions:
        if isinstance(definition, OperationDefinitionNode) and (
            operation_name is None or (definition.name and definition.name.value == operation_name)
        ):
            visit(definition.selection_set)
    return found


def test_every_suite_document_gets_the_same_answer_both_ways(differential: Differential) -> None:
    documents = suite_documents()
    assert len(documents) > 100, "the harvest found too few documents of the suite"
    rng = random.Random(f"suite-{differential.backend}")
    values = Values(differential.data, rng)
    keys = differential.data.keys
    covered, other = Tally(), Tally()
    for number, document in enumerate(documents):
        parsed = parse(document.query)
        is_covered = _roots(parsed, document.operation_name) <= COVERED_ROOTS
        tally = covered if is_covered else other
        for round_ in range(ROUNDS_COVERED if is_covered else ROUNDS_OTHER):
            variables = values.variables(parsed, document.operation_name)
            # One key in turn (each scope set meets each document), one at random.
            chosen = [keys[(number + round_) % len(keys)], rng.choice(keys)]
            for _, _, secret in chosen[:KEYS_PER_ROUND]:
                differential.differ.compare(
                    document.query, variables, secret, tally, document.operation_name
                )
    print(
        f"\n{differential.backend}: {len(documents)} suite documents; "
        f"{covered.requests} comparisons of those of covered roots, {covered.compiled} "
        f"compiled ({covered.share:.0%}); {other.requests} of the others, {other.compiled} "
        "compiled"
    )
    differences = covered.differences + other.differences
    assert not differences, "\n\n".join(str(d) for d in differences[:10])
    assert other.compiled == 0
    assert covered.share > 0.3, f"only {covered.share:.0%} of the answers were compiled"
