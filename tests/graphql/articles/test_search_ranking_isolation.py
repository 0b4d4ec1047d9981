"""A workspace's search ranking and cursors come from its own articles alone: another
workspace writing the same words changes nothing in them, and cursors are signed, so none
is readable as a score, made up, or carried into another workspace."""

from __future__ import annotations

import base64

from tests.client import GraphQLClient
from tests.conftest import WorkspaceFixture
from tests.graphql.articles.helpers import ARTICLES, list_articles, new_article

WORD = "quasar"


def _search(api: GraphQLClient) -> dict[str, object]:
    return list_articles(api, first=2, filter={"query": WORD})


def test_another_workspaces_writes_do_not_move_a_ranking(
    api: GraphQLClient, other_workspace: WorkspaceFixture
) -> None:
    new_article(api, f"About the {WORD}", body=f"One {WORD}.", status="published")
    new_article(api, "Telescopes", body=f"A {WORD} and another {WORD}.", status="published")
    new_article(api, "Stars", body=f"Far from any {WORD}, long text " * 5, status="published")
    before = _search(api)
    theirs = other_workspace.client()

    for n in range(3):
        new_article(theirs, f"{WORD} draft {n}", body=f"{WORD} " * (n + 1), status="draft")
    after = _search(api)

    assert after == before
    assert before["totalCount"] == 3


def test_a_cursor_of_one_workspace_is_refused_in_another(
    api: GraphQLClient, other_workspace: WorkspaceFixture
) -> None:
    for n in range(3):
        new_article(api, f"{WORD} {n}", body=WORD, status="published")
        new_article(other_workspace.client(), f"{WORD} {n}", body=WORD, status="published")
    cursor = _search(api)["pageInfo"]["endCursor"]  # type: ignore[index]

    answer = other_workspace.client()(ARTICLES, {"after": cursor, "filter": {"query": WORD}})

    assert answer.error_at("articles")["extensions"]["code"] == "BAD_USER_INPUT"


def test_a_cursor_with_a_score_of_ones_own_is_refused(api: GraphQLClient) -> None:
    articles = [new_article(api, f"{WORD} {n}", body=WORD, status="published") for n in range(3)]
    forged = base64.urlsafe_b64encode(f"r:1e9:{articles[0]['id']}".encode()).decode()
    cursor = _search(api)["pageInfo"]["endCursor"]
    raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))  # type: ignore[operator]

    answer = api(ARTICLES, {"after": forged, "filter": {"query": WORD}})

    assert answer.error_at("articles")["extensions"]["code"] == "BAD_USER_INPUT"
    assert not raw.startswith(b"c1:")
