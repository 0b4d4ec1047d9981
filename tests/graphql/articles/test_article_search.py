"""articles(filter: {query}): full-text search, every word, stemmed, by relevance then
creation, with cursors that page through relevance order. Runs on SQLite (FTS5) and
PostgreSQL (tsvector), over a corpus of 200+ articles written in one transaction."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from supportdesk.domain.articles import NewArticle
from tests.client import GraphQLClient
from tests.conftest import make_workspace
from tests.graphql.articles.helpers import all_pages, insert_articles, list_articles
from tests.servers import RunningServer

FILLER_WORDS = ["network", "router", "laptop", "screen", "keyboard", "mouse", "cable", "office"]
FILLERS = 200
BODY_WORDS = 20


def filler_body(index: int, printers: int) -> str:
    """20 words, `printers` of them "printer": equal lengths, so only the count ranks."""
    others = [FILLER_WORDS[(index + offset) % len(FILLER_WORDS)] for offset in range(BODY_WORDS)]
    return " ".join(["printer"] * printers + others[printers:])


def filler(index: int) -> NewArticle:
    status = "draft" if index % 7 == 0 else "published"
    return NewArticle(f"Note {index}", filler_body(index, index % 5), status)


PASSWORD_BODY = (
    "To reset your password, open Settings. Your password must be long; password managers help."
)
# Created in the reverse of their relevance to "reset password", so that only ranking
# (never creation order) can put them right.
TARGETS = {
    "billing": NewArticle(
        "Billing",
        "Invoices arrive monthly. "
        + " ".join(FILLER_WORDS * 5)
        + " To reset your password, contact billing.",
        "published",
    ),
    "settings": NewArticle(
        "Account settings",
        "To reset your password, open the settings page. Password rules apply.",
        "published",
    ),
    "guide draft": NewArticle("Resetting your password", PASSWORD_BODY, "draft"),
    "guide": NewArticle("Resetting your password", PASSWORD_BODY, "published"),
}


@dataclass
class Corpus:
    api: GraphQLClient
    fillers: list[str]  # ids, in creation order
    targets: dict[str, str]

    def ids(self, query: str, status: str | None = "published") -> list[str]:
        filter = {"query": query} if status is None else {"query": query, "status": status}
        return [node["id"] for node in all_pages(self.api, 100, filter=filter)]


@pytest.fixture(scope="module")
def corpus(server: RunningServer) -> Corpus:
    workspace = make_workspace(server, "Knowledge base")
    fillers = insert_articles(workspace, [filler(index) for index in range(FILLERS)])
    targets = dict(zip(TARGETS, insert_articles(workspace, list(TARGETS.values())), strict=True))
    return Corpus(workspace.client(), fillers, targets)


def test_the_corpus_is_there(corpus: Corpus) -> None:
    assert list_articles(corpus.api)["totalCount"] == FILLERS + len(TARGETS)


def test_more_matches_and_title_matches_rank_first(corpus: Corpus) -> None:
    billing, settings, draft, guide = (corpus.targets[name] for name in TARGETS)

    assert corpus.ids("reset password") == [guide, settings, billing]
    # The draft says exactly what the guide says: equally relevant, older first.
    assert corpus.ids("reset password", status=None) == [draft, guide, settings, billing]


def test_every_word_must_match(corpus: Corpus) -> None:
    assert corpus.ids("password billing") == [corpus.targets["billing"]]
    assert corpus.ids("password printer") == []
    assert corpus.ids("password nonexistentword") == []


def test_words_are_stemmed_and_case_does_not_matter(corpus: Corpus) -> None:
    expected = corpus.ids("reset password")

    assert corpus.ids("PASSWORDS Resets") == expected
    assert corpus.ids("resetting, password!") == expected
    assert len(corpus.ids("printers")) == len(corpus.ids("printer")) > 0


def test_a_draft_is_never_returned_to_a_filter_of_published(corpus: Corpus) -> None:
    drafts = {node["id"] for node in all_pages(corpus.api, 100, filter={"status": "draft"})}
    assert corpus.targets["guide draft"] in drafts

    for query in ("reset password", "printer", "resetting your password", "note"):
        assert not drafts & set(corpus.ids(query)), query
    assert set(corpus.ids("printer", status="draft")) <= drafts


def test_pages_of_a_search_follow_relevance_then_creation(corpus: Corpus) -> None:
    # Fillers hold 0–4 "printer" in bodies of equal length: more is more relevant, and
    # equally relevant ones come in creation order.
    expected = sorted(
        (index for index in range(FILLERS) if index % 5 and index % 7),
        key=lambda index: (-(index % 5), index),
    )
    expected_ids = [corpus.fillers[index] for index in expected]

    walked = all_pages(corpus.api, 7, filter={"query": "printer", "status": "published"})
    first_page = list_articles(
        corpus.api, first=7, filter={"query": "printer", "status": "published"}
    )

    assert [node["id"] for node in walked] == expected_ids
    assert first_page["totalCount"] == len(expected_ids)
    assert first_page["pageInfo"]["hasNextPage"] is True


def test_a_search_cursor_continues_the_same_search(corpus: Corpus) -> None:
    search = {"query": "reset password", "status": "published"}
    first = list_articles(corpus.api, first=1, filter=search)

    rest = list_articles(corpus.api, first=10, after=first["pageInfo"]["endCursor"], filter=search)

    assert [edge["node"]["id"] for edge in first["edges"]] == [corpus.targets["guide"]]
    assert [edge["node"]["id"] for edge in rest["edges"]] == [
        corpus.targets["settings"],
        corpus.targets["billing"],
    ]
    assert rest["totalCount"] == 3
    assert rest["pageInfo"]["hasNextPage"] is False


def test_a_query_without_words_lists_everything_in_creation_order(corpus: Corpus) -> None:
    plain = list_articles(corpus.api, first=5)
    punctuation = list_articles(corpus.api, first=5, filter={"query": " ?! -- "})

    assert punctuation == plain
