"""issues(filter: {query}) (CONTRACT section 12): full-text search over the subject and
every message, notes included; every word must match, stemmed; most relevant first, then
oldest first; `totalCount` counts the matches. The index follows every writer (createIssue,
replyToIssue, addNote, updateIssue, mergeIssue) in its own transaction. On SQLite (FTS5)
and PostgreSQL (tsvector), through HTTP."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from tests.client import GraphQLClient
from tests.conftest import make_workspace
from tests.graphql.issues.helpers import add_note, new_issue, reply, update
from tests.servers import RunningServer

SEARCH = """
query($first: Int, $after: String, $filter: IssueFilter, $orderBy: IssueOrder) {
  issues(first: $first, after: $after, filter: $filter, orderBy: $orderBy) {
    totalCount
    edges { cursor node { id subject } }
    pageInfo { hasNextPage endCursor }
  }
}
"""


@dataclass
class Seeded:
    api: GraphQLClient
    reader: GraphQLClient  # a Read-only key
    ids: dict[str, str]

    def found(self, query: str | None, reader: bool = False, **variables: Any) -> list[str]:
        """The subjects' names (keys of `ids`) of every page of the search, 2 at a time."""
        names = {issue_id: name for name, issue_id in self.ids.items()}
        api = self.reader if reader else self.api
        filter = {**variables.pop("filter", {}), "query": query}
        walked, after = [], None
        while True:
            page = api.ok(SEARCH, {"first": 2, "after": after, "filter": filter, **variables})
            walked += [names.get(edge["node"]["id"], "?") for edge in page["issues"]["edges"]]
            if not page["issues"]["pageInfo"]["hasNextPage"]:
                return walked
            after = page["issues"]["pageInfo"]["endCursor"]

    def first_page(self, query: str, **variables: Any) -> dict[str, Any]:
        page: dict[str, Any] = self.api.ok(SEARCH, {"filter": {"query": query}, **variables})[
            "issues"
        ]
        return page


@pytest.fixture(scope="module")
def seeded(server: RunningServer) -> Seeded:
    """Issues created in this order, each through the API."""
    workspace = make_workspace(server, "Search")
    api = workspace.client()
    ids = {}
    # "printer" in the subject (and the first message, in another form).
    ids["subject"] = new_issue(api, subject="Printer on fire", body="Smoke from the printing.")[
        "id"
    ]
    # "printer" three times in the thread: the first message and two replies.
    ids["three"] = new_issue(api, subject="Office supplies", body="The printer jams.")["id"]
    reply(api, ids["three"], "The printer again.")
    reply(api, ids["three"], "Printers everywhere.")
    # "printer" once, in the third message only.
    ids["third"] = new_issue(api, subject="A question", body="Hello there.")["id"]
    reply(api, ids["third"], "Can you help?")
    reply(api, ids["third"], "My printer is broken.")
    # A word only an internal note holds.
    ids["note"] = new_issue(api, subject="Billing", body="Invoice attached.")["id"]
    add_note(api, ids["note"], "Customer is on the zeppelin project.")
    ids["other"] = new_issue(api, subject="Mail bounces", body="Nothing about devices.")["id"]
    reader = workspace.client(workspace.create_key(["issues:read"]))
    return Seeded(api, reader, ids)


def test_every_word_must_match(seeded: Seeded) -> None:
    assert seeded.found("printer fire") == ["subject"]
    assert seeded.found("printer broken") == ["third"]
    assert seeded.found("printer nonexistentword") == []


def test_a_word_only_the_third_message_holds_finds_the_issue(seeded: Seeded) -> None:
    assert seeded.found("broken") == ["third"]
    assert seeded.found("smoke") == ["subject"]  # the first message


def test_most_relevant_first_and_total_count_agrees(seeded: Seeded) -> None:
    # A match in the subject weighs more than three in the thread, three more than one.
    walked = seeded.found("printer")
    page = seeded.first_page("printer", first=1)

    assert walked == ["subject", "three", "third"]
    assert page["totalCount"] == 3
    assert page["pageInfo"]["hasNextPage"] is True


def test_words_are_stemmed_and_case_does_not_matter(seeded: Seeded) -> None:
    assert seeded.found("PRINTERS") == seeded.found("printer")
    assert seeded.found("Broke? printer!") == []  # "broke" is not a form of "broken"
    assert seeded.found("jammed") == ["three"]


def test_a_read_only_key_searches_notes_too(seeded: Seeded) -> None:
    assert seeded.found("zeppelin", reader=True) == ["note"]
    assert seeded.found("printer", reader=True) == seeded.found("printer")


def test_filters_combine_with_the_query(seeded: Seeded) -> None:
    update(seeded.api, seeded.ids["three"], status="pending")

    assert seeded.found("printer", filter={"status": ["pending"]}) == ["three"]
    assert seeded.found("printer", filter={"status": ["new"]}) == ["subject", "third"]
    assert seeded.first_page("printer")["totalCount"] == 3


def test_another_order_lists_the_matches_in_it(seeded: Seeded) -> None:
    newest_first = seeded.found("printer", orderBy="CREATED_AT_DESC")
    relevance = seeded.found("printer", orderBy="RELEVANCE")

    assert newest_first == ["third", "three", "subject"]
    assert relevance == seeded.found("printer")
    # Without a query every issue is as relevant: oldest first, as with no order at all.
    assert seeded.found(None, orderBy="RELEVANCE") == seeded.found(None)
    assert seeded.found("?!", orderBy="RELEVANCE") == seeded.found(None)


def test_a_cursor_belongs_to_its_order(seeded: Seeded) -> None:
    by_relevance = seeded.first_page("printer", first=1)["pageInfo"]["endCursor"]
    by_creation = seeded.first_page("printer", first=1, orderBy="CREATED_AT_ASC")["pageInfo"][
        "endCursor"
    ]

    for cursor, order in ((by_relevance, "CREATED_AT_ASC"), (by_creation, "RELEVANCE")):
        answer = seeded.api(
            SEARCH, {"after": cursor, "filter": {"query": "printer"}, "orderBy": order}
        )
        assert answer.error_at("issues")["extensions"]["code"] == "BAD_USER_INPUT"


@pytest.mark.parametrize(
    ("query", "says"),
    [("x" * 501, "500 characters"), (" ".join(f"w{n}" for n in range(33)), "32 words")],
)
def test_an_absurd_query_is_bad_input(seeded: Seeded, query: str, says: str) -> None:
    answer = seeded.api(SEARCH, {"filter": {"query": query}})

    error = answer.error_at("issues")
    assert answer.status == 200
    assert error["extensions"]["code"] == "BAD_USER_INPUT"
    assert says in error["message"]


def test_a_query_of_no_words_lists_everything(seeded: Seeded) -> None:
    assert seeded.found(" ?! -- ") == seeded.found(None) == list(seeded.ids)


def test_another_workspace_shares_nothing(seeded: Seeded, server: RunningServer) -> None:
    theirs = make_workspace(server, "Other").client()
    new_issue(theirs, subject="Printer printer printer", body="printer")

    assert seeded.found("printer") == ["subject", "three", "third"]
    assert seeded.first_page("printer")["totalCount"] == 3


def test_the_index_follows_every_writer(server: RunningServer) -> None:
    api = make_workspace(server).client()
    target = new_issue(api, subject="Scanner", body="The scanner hums.")["id"]
    source = new_issue(api, subject="Duplicate about gears", body="Gears grind.")["id"]
    renamed = new_issue(api, subject="Old words", body="Plain body.")["id"]
    closed = new_issue(api, subject="Finished", body="Done.")["id"]
    for status in ("solved", "closed"):
        assert update(api, closed, status=status)["error"] is None

    update(api, renamed, subject="New title")
    refused = reply(api, closed, "A word never indexed: quokka.")
    merged = api.ok(
        "mutation($i: MergeIssueInput!) { mergeIssue(input: $i) { error { code } } }",
        {"i": {"sourceId": source, "targetId": target}},
    )["mergeIssue"]

    def ids(query: str) -> list[str]:
        page = api.ok(SEARCH, {"first": 10, "filter": {"query": query}})["issues"]
        return [edge["node"]["id"] for edge in page["edges"]]

    assert refused["error"]["code"] == "ISSUE_CLOSED"
    assert merged["error"] is None
    assert ids("old") == []
    assert ids("new title") == ids("plain") == [renamed]
    assert ids("quokka") == []
    # The target holds the source's thread; the source keeps only its subject.
    assert ids("grind scanner") == [target]
    assert ids("gears") == [source, target]  # the source's subject weighs more
    assert ids("duplicate") == [source]
