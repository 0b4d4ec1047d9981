"""Documents hypothesis-graphql generates over the covered fields, their arguments
written in them or sent as variables, answered by the compiled path and by the executor
with keys of random scopes: the answers must not differ (issue #16)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.graphql.compiled.compare import Tally
from tests.graphql.compiled.conftest import Differential
from tests.graphql.compiled.generated import requests

EXAMPLES = 400


def test_generated_documents_get_the_same_answer_both_ways(differential: Differential) -> None:
    data = differential.data
    tally = Tally()
    # Full access and Read-only (the fixture's first two keys) most often: they read all
    # that compiles; every other scope set too.
    keys = st.one_of(st.sampled_from(data.keys[:2]), st.sampled_from(data.keys))

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(request=requests(data), key=keys)
    def same_answer(
        request: tuple[str, dict[str, object] | None], key: tuple[str, tuple[str, ...], str]
    ) -> None:
        query, variables = request
        difference = differential.differ.compare(query, variables, key[2], tally)
        assert difference is None, str(difference)

    same_answer()
    print(
        f"\n{differential.backend}: {tally.requests} generated documents, "
        f"{tally.compiled} compiled ({tally.share:.0%})"
    )
    assert tally.requests >= EXAMPLES
    assert tally.share > 0.35, f"only {tally.share:.0%} of the answers were compiled"
