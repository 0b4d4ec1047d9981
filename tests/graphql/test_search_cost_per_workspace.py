"""A search costs what its own workspace holds, not what the others do (security review,
issue #38, finding 5). SQLite's FTS5 tables hold every workspace's rows; were the
workspace only a filter on what the index found, another workspace's matches would each
be read, looked up and dropped, and the time a search takes would tell its caller how
many the others hold. The workspace is part of the match, so the index hands over its
rows alone, and each is looked up by its row id, so the table is never read whole.

The cost is counted, not timed: SQLite's progress handler called at every instruction of
its virtual machine counts what a statement does, the same at every run on a busy machine.
The statements are the domain's own (`list_query`), run on the database file of a server
of the test's own, in a state the test makes: the planner's statistics taken while the
tables were small (as an operator's ANALYZE early on leaves them), and the full-text
index in one segment per write (FTS5's automatic merging off). PostgreSQL's search works
differently (a GIN index on a tsvector column); these counts are SQLite's."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, insert
from sqlalchemy.engine import make_url

from supportdesk.db.search import SearchEntry
from supportdesk.db.tables import issues as issues_table
from supportdesk.domain import articles, issues
from supportdesk.domain.articles import queries as article_queries
from supportdesk.domain.audit import CLI_ACTOR
from supportdesk.domain.clock import now
from supportdesk.domain.ids import new_id
from supportdesk.domain.issues.search import ISSUE_SEARCH
from supportdesk.domain.lists import ListQuery
from supportdesk.domain.pagination import PageRequest
from tests.client import GraphQLClient
from tests.conftest import WorkspaceFixture, make_workspace
from tests.graphql.articles.helpers import list_articles, new_article
from tests.graphql.issues.helpers import new_issue
from tests.servers import RunningServer

THEIRS = 3_000  # the other workspace's matches
ISSUES = "query($q: String) { issues(filter: {query: $q}) { totalCount edges { node { id } } } }"
REQUESTER = "query($id: ID!) { issue(id: $id) { requester { id } } }"


@pytest.fixture
def own_server(tmp_path: Path) -> Iterator[RunningServer]:
    """A SQLite server on a database of its own: whatever ran before, its statistics and
    its index are what the test makes them."""
    running = RunningServer("sqlite", f"sqlite+aiosqlite:///{tmp_path / 'search.db'}").start()
    yield running
    running.stop()


def database_file(server: RunningServer) -> str:
    path = make_url(server.database_url).database
    assert path is not None
    return path


def make_hostile(server: RunningServer) -> None:
    """Statistics that call every table small, and FTS5's merging off (each write stays a
    segment of its own, which every search walks): the planner expects more matches than
    the table holds rows, so its cheapest plan reads the table before the search (a Bloom
    filter of all its rows), unless the statement leaves it no such choice."""
    connection = sqlite3.connect(database_file(server), isolation_level=None)
    try:
        connection.execute("ANALYZE")
        for index in ("issues_fts", "articles_fts"):
            connection.execute(f"INSERT INTO {index} ({index}, rank) VALUES ('automerge', 0)")
    finally:
        connection.close()


def instructions(workspace: WorkspaceFixture, query: ListQuery) -> tuple[int, int]:
    """The instructions SQLite runs for the query's page and for its count."""
    url = make_url(workspace.server.database_url).set(drivername="sqlite")
    engine = create_engine(url)
    counted = []
    try:
        with engine.connect() as connection:
            driver = connection.connection.driver_connection
            assert driver is not None
            for statement in (query.rows, query.count):
                steps = [0]

                def step(steps: list[int] = steps) -> int:
                    steps[0] += 1
                    return 0  # carry on

                driver.set_progress_handler(step, 1)
                connection.execute(statement, query.values).all()
                driver.set_progress_handler(None, 1)
                counted.append(steps[0])
    finally:
        engine.dispose()
    return counted[0], counted[1]


def add_issues_saying(theirs: WorkspaceFixture, word: str, count: int) -> None:
    """`count` issues that say `word`, written at once as the domain's writers write them
    (one API call each would take minutes and the key's rate limit)."""
    api = theirs.client()
    first = new_issue(api, subject=f"The {word} again", body=f"Still the {word}.")
    requester_id = api.ok(REQUESTER, {"id": first["id"]})["issue"]["requester"]["id"]
    moment = now()
    made = [
        {
            "workspace_id": theirs.id,
            "id": new_id("Issue", moment),
            "ticket_number": number,
            "subject": f"The {word}, take {number}",
            "status": "new",
            "priority": "normal",
            "requester_id": requester_id,
            "message_count": 0,
            "created_at": moment,
            "updated_at": moment,
        }
        for number in range(2, count + 1)
    ]

    async def write() -> None:
        async with theirs.server.db.transaction() as connection:
            rowids = await ISSUE_SEARCH.next_rowids(connection, len(made))
            rows = [{**row, "search_rowid": r} for row, r in zip(made, rowids, strict=True)]
            await connection.execute(insert(issues_table), rows)
            entries = [
                SearchEntry(r["search_rowid"], (r["workspace_id"], r["id"]), (r["subject"], word))
                for r in rows
            ]
            await ISSUE_SEARCH.add(connection, entries)

    theirs.server.call(write())


def add_articles_saying(theirs: WorkspaceFixture, word: str, count: int) -> None:
    made = [
        articles.NewArticle(title=f"The {word}, part {n}", body=f"All about the {word}.")
        for n in range(count)
    ]
    theirs.server.call(articles.create_articles(theirs.server.db, CLI_ACTOR, theirs.id, made))


def our_issues(api: GraphQLClient, word: str) -> list[str]:
    new_issue(api, subject="Nothing to see")
    return [new_issue(api, subject=f"A {word} in the printer")["id"] for _ in range(3)]


def our_articles(api: GraphQLClient, word: str) -> list[str]:
    new_article(api, "Nothing to see")
    return [new_article(api, f"A {word} explained", body="Read on.")["id"] for _ in range(3)]


def issue_search(workspace_id: str, word: str) -> ListQuery:
    where = issues.IssueFilter(query=word)
    return issues.list_query(workspace_id, PageRequest(25, None), where, None)


def article_search(workspace_id: str, word: str) -> ListQuery:
    where = articles.ArticleFilter(query=word)
    return article_queries.list_query(workspace_id, PageRequest(25, None), where)


def issues_found(api: GraphQLClient, word: str) -> dict[str, Any]:
    found: dict[str, Any] = api.ok(ISSUES, {"q": word})["issues"]
    return found


def articles_found(api: GraphQLClient, word: str) -> dict[str, Any]:
    return list_articles(api, filter={"query": word})


@dataclass(frozen=True)
class Searched:
    """One kind of search: ours made through the API (their ids), theirs written at once,
    the domain's statements, and what the API answers."""

    ours: Callable[[GraphQLClient, str], list[str]]
    theirs: Callable[[WorkspaceFixture, str, int], None]
    statements: Callable[[str, str], ListQuery]
    answer: Callable[[GraphQLClient, str], dict[str, Any]]


KINDS = {
    "issues": Searched(our_issues, add_issues_saying, issue_search, issues_found),
    "articles": Searched(our_articles, add_articles_saying, article_search, articles_found),
}


@pytest.mark.parametrize("kind", list(KINDS))
def test_a_search_costs_what_its_workspace_holds(own_server: RunningServer, kind: str) -> None:
    """Another workspace's 3,000 matches of the word add fewer instructions than a tenth
    of one each to our search: FTS5 walks the one or two segments their writes added
    (issues: the page 1,176 instructions alone and 1,248 beside them, the count 202 and
    274; articles 1,120 and 1,155, 214 and 249). Before the workspace was part of the
    match, each cost about eight: FTS5 handed them over to be looked up and dropped.
    While each match's row was looked up with `=`, these statistics made SQLite first
    read every workspace's rows into a Bloom filter, about three instructions a row
    (issues: 1,199 and 10,271, 225 and 9,297; articles 1,135 and 10,170, 229 and 9,264).
    The answers stay ours alone."""
    searched = KINDS[kind]
    word = "quark"
    ours = make_workspace(own_server, "Ours")
    api = ours.client()
    mine = searched.ours(api, word)
    make_hostile(own_server)
    alone = instructions(ours, searched.statements(ours.id, word))

    searched.theirs(make_workspace(own_server, "Theirs"), word, THEIRS)
    beside_theirs = instructions(ours, searched.statements(ours.id, word))
    answer = searched.answer(api, word)

    added = max(b - a for a, b in zip(alone, beside_theirs, strict=True))
    assert added < THEIRS // 10, f"{alone} alone, {beside_theirs} beside {THEIRS:,} matches"
    assert sorted(edge["node"]["id"] for edge in answer["edges"]) == sorted(mine)
    assert answer["totalCount"] == 3
