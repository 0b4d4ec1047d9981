"""Documents the differential tests found answered otherwise by the compiled path than by
the executor, each kept small: both paths must give the same answer."""

from __future__ import annotations

from tests.graphql.compiled.compare import Tally
from tests.graphql.compiled.conftest import Differential

ISSUE_FIELDS = "id ticketNumber subject status priority messageCount createdAt updatedAt"


def _same(differential: Differential, query: str) -> Tally:
    tally = Tally()
    difference = differential.differ.compare(query, None, differential.workspace.key, tally)
    assert difference is None, str(difference)
    return tally


def test_an_object_of_more_keys_than_a_json_object_takes_is_answered(
    differential: Differential,
) -> None:
    # 51 keys: json_build_object takes at most 100 arguments (db/answers.py MAX_KEYS); the
    # compiled path failed with a server error.
    issue = differential.data.issues[0]
    aliases = " ".join(f"a{n}: id" for n in range(43))
    tally = _same(differential, f'{{ issue(id: "{issue}") {{ {ISSUE_FIELDS} {aliases} }} }}')
    assert tally.compiled == 0
    # 50 keys still compile.
    aliases = " ".join(f"a{n}: id" for n in range(42))
    tally = _same(differential, f'{{ issue(id: "{issue}") {{ {ISSUE_FIELDS} {aliases} }} }}')
    assert tally.compiled == 1
