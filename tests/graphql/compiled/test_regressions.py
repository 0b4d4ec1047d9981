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


def test_objects_nested_deeper_than_sqlite_parses_are_answered(
    differential: Differential,
) -> None:
    # Seven objects in objects: SQLite (before 3.46) refused the compiled statement
    # ("parser stack overflow") and the answer was a server error.
    issue = differential.data.issues[7]  # merged into another
    nested = "mergedInto { " * 7 + "id" + " }" * 7
    query = f'{{ issue(id: "{issue}") {{ {nested} }} }}'
    for _ in range(2):  # the plan remembers, and the executor answers again
        _same(differential, query)
    nested = "mergedInto { " * 5 + "id" + " }" * 5
    _same(differential, f"{{ issues(first: 10) {{ edges {{ node {{ {nested} }} }} }} }}")


def test_a_connection_counted_inside_a_lists_edges_counts_its_own_parent(
    differential: Differential,
) -> None:
    # Every page and sub-select was named alike ("numbered"): a nested connection's count,
    # correlated to its parent's row, read the nearer page instead. PostgreSQL refused it
    # (a server error); SQLite counted the wrong rows.
    for query in [
        "{ issues(first: 5) { edges { node { messages { totalCount } } } } }",
        '{ issues(first: 5) { edges { node { messages(visibility: "internal") { totalCount } } } } }',
        "{ accounts { edges { node { contacts { totalCount edges { node { email } } } } } } }",
        "{ accounts { edges { node { issues { totalCount pageInfo { endCursor } } } } } }",
        "{ contacts { edges { node { issues(first: 1) { totalCount edges { cursor } } } } } }",
    ]:
        tally = _same(differential, query)
        assert tally.compiled == 1, query
