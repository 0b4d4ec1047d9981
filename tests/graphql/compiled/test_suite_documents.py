"""Every read document of the test suite, answered by the compiled path and by the
executor, with random variables and keys of random scopes: the answers must not differ
(issue #16)."""

from __future__ import annotations

import random

from graphql import parse

from tests.graphql.compiled.compare import Tally
from tests.graphql.compiled.conftest import Differential
from tests.graphql.compiled.harvest import Values, suite_documents

VARIABLE_SETS = 3
KEYS_PER_SET = 2


def test_every_suite_document_gets_the_same_answer_both_ways(differential: Differential) -> None:
    documents = suite_documents()
    assert len(documents) > 100, "the harvest found too few documents of the suite"
    rng = random.Random(f"suite-{differential.backend}")
    values = Values(differential.data, rng)
    keys = differential.data.keys
    tally = Tally()
    for number, document in enumerate(documents):
        parsed = parse(document.query)
        for round_ in range(VARIABLE_SETS):
            variables = values.variables(parsed, document.operation_name)
            chosen = [keys[(number + round_) % len(keys)], rng.choice(keys)]
            for _, _, secret in chosen[:KEYS_PER_SET]:
                differential.differ.compare(
                    document.query, variables, secret, tally, document.operation_name
                )
    print(
        f"\n{differential.backend}: {len(documents)} suite documents, {tally.requests} "
        f"comparisons, {tally.compiled} compiled ({tally.share:.0%})"
    )
    assert not tally.differences, "\n\n".join(str(d) for d in tally.differences[:10])
    assert tally.share > 0.25, f"only {tally.share:.0%} of the answers were compiled"
