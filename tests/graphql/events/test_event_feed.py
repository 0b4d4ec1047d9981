"""Reading the change feed (CONTRACT section 11): `events(first, after, filter: {types,
sinceSequence})`, oldest first; filters, paging, counts and the 30 days of retention."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import update

from supportdesk.db.tables import events as events_table
from supportdesk.domain.events.retention import remove_expired
from tests.client import GraphQLClient
from tests.conftest import WorkspaceFixture
from tests.graphql.articles.helpers import new_article
from tests.graphql.contacts.helpers import new_contact
from tests.graphql.events.helpers import EVENTS, all_events, last_sequence, types_of

READ_ONLY = ["accounts:read", "articles:read", "contacts:read", "issues:read"]


def page(api: GraphQLClient, **variables: Any) -> dict[str, Any]:
    connection: dict[str, Any] = api.ok(EVENTS, variables)["events"]
    return connection


def sequences(connection: dict[str, Any]) -> list[int]:
    return [edge["node"]["sequence"] for edge in connection["edges"]]


def some_events(api: GraphQLClient, articles: int = 3, contacts: int = 2) -> None:
    for n in range(articles):
        new_article(api, title=f"Article {n}")
    for n in range(contacts):
        new_contact(api, email=f"person-{n}@example.com")


# --- types ------------------------------------------------------------------------------


def test_the_types_filter_keeps_only_those_types_in_sequence_order(api: GraphQLClient) -> None:
    some_events(api)
    everything = all_events(api)

    found = all_events(api, types=["contact.created", "article.created"])

    wanted = {"contact.created", "article.created"}
    assert [e["id"] for e in found] == [e["id"] for e in everything if e["type"] in wanted]
    assert set(types_of(found)) == wanted


def test_an_unknown_type_is_bad_input(api: GraphQLClient) -> None:
    answer = api(EVENTS, {"filter": {"types": ["article.created", "article.exploded"]}})

    assert answer.codes == ["BAD_USER_INPUT"]
    assert "article.exploded" in answer.errors[0]["message"]
    assert answer.data.get("events") is None


def test_asking_for_a_type_the_key_may_not_read_shows_none_of_it(
    workspace: WorkspaceFixture, api: GraphQLClient
) -> None:
    reader = workspace.client(workspace.create_key(READ_ONLY))

    answer = reader(EVENTS, {"filter": {"types": ["api_key.created"]}})

    events = (answer.data.get("events") or {}).get("edges") or []
    assert events == []
    assert answer.codes in ([], ["FORBIDDEN"])


# --- paging -----------------------------------------------------------------------------


def test_paging_visits_every_event_once_in_sequence_order(api: GraphQLClient) -> None:
    some_events(api, articles=6, contacts=3)
    last = last_sequence(api)

    visited: list[int] = []
    totals: set[int] = set()
    after = None
    while True:
        connection = page(api, first=2, after=after)
        assert len(connection["edges"]) <= 2
        visited += sequences(connection)
        totals.add(connection["totalCount"])
        if not connection["pageInfo"]["hasNextPage"]:
            break
        assert connection["edges"][-1]["cursor"] == connection["pageInfo"]["endCursor"]
        after = connection["pageInfo"]["endCursor"]

    assert visited == list(range(1, last + 1))
    assert totals == {last}


def test_paging_keeps_the_filters(api: GraphQLClient) -> None:
    some_events(api, articles=5, contacts=5)
    start = last_sequence(api) - 8  # inside the run of events above
    expected = [
        e["sequence"]
        for e in all_events(api)
        if e["type"] == "article.created" and e["sequence"] > start
    ]

    visited: list[int] = []
    after = None
    while True:
        connection = page(
            api,
            first=1,
            after=after,
            filter={"types": ["article.created"], "sinceSequence": start},
        )
        visited += sequences(connection)
        assert connection["totalCount"] == len(expected)
        if not connection["pageInfo"]["hasNextPage"]:
            break
        after = connection["pageInfo"]["endCursor"]

    assert visited == expected
    assert expected  # the filter kept something


def test_a_cursor_that_is_no_cursor_is_bad_input(api: GraphQLClient) -> None:
    answer = api(EVENTS, {"first": 5, "after": "3"})

    assert answer.codes == ["BAD_USER_INPUT"]


# --- totalCount -------------------------------------------------------------------------


def test_total_count_respects_the_filters(api: GraphQLClient) -> None:
    some_events(api, articles=3, contacts=2)
    last = last_sequence(api)

    everything = page(api, first=1)["totalCount"]
    articles = page(api, first=1, filter={"types": ["article.created"]})["totalCount"]
    later = page(api, first=1, filter={"sinceSequence": last - 2})["totalCount"]
    later_articles = page(
        api, first=1, filter={"types": ["article.created"], "sinceSequence": last - 2}
    )["totalCount"]

    assert everything == last
    assert articles == 3
    assert later == 2
    assert later_articles == 0  # the last two are the contacts


# --- sinceSequence ----------------------------------------------------------------------


def test_since_sequence_returns_only_later_events(api: GraphQLClient) -> None:
    some_events(api)
    last = last_sequence(api)

    later = all_events(api, sinceSequence=last - 3)
    none = page(api, filter={"sinceSequence": last})
    beyond = page(api, filter={"sinceSequence": last + 100})

    assert [event["sequence"] for event in later] == [last - 2, last - 1, last]
    assert none["edges"] == [] and none["pageInfo"]["hasNextPage"] is False
    assert beyond["edges"] == []


def test_a_negative_since_sequence_is_bad_input(api: GraphQLClient) -> None:
    answer = api(EVENTS, {"filter": {"sinceSequence": -1}})

    assert answer.codes == ["BAD_USER_INPUT"]
    assert answer.data.get("events") is None


# --- retention --------------------------------------------------------------------------


def age_events(workspace: WorkspaceFixture, days: int, up_to_sequence: int | None = None) -> None:
    """Make this workspace's events (up to a sequence) `days` old, in the database."""

    async def age() -> None:
        statement = (
            update(events_table)
            .where(events_table.c.workspace_id == workspace.id)
            .values(created_at=datetime.now(UTC) - timedelta(days=days))
        )
        if up_to_sequence is not None:
            statement = statement.where(events_table.c.sequence <= up_to_sequence)
        async with workspace.server.db.transaction() as connection:
            await connection.execute(statement)

    workspace.server.call(age())


def run_retention(workspace: WorkspaceFixture) -> int:
    """Retention as the dispatcher runs it: now, 30 days."""
    return workspace.server.call(remove_expired(workspace.server.db, datetime.now(UTC), 30))


def test_events_older_than_retention_are_gone_and_a_since_sequence_before_them_is_refused(
    workspace: WorkspaceFixture, api: GraphQLClient
) -> None:
    some_events(api)
    last = last_sequence(api)
    age_events(workspace, days=31)

    removed = run_retention(workspace)

    assert removed >= last
    assert all_events(api) == []
    refused = api(EVENTS, {"filter": {"sinceSequence": 0}})
    assert refused.codes == ["BAD_USER_INPUT"]
    assert refused.errors[0]["extensions"]["oldestSequence"] == last + 1
    assert refused.data.get("events") is None
    caught_up = api(EVENTS, {"filter": {"sinceSequence": last}})
    assert caught_up.errors == []
    assert caught_up.data["events"]["edges"] == []


def test_events_recorded_after_retention_are_readable_and_continue_the_sequence(
    workspace: WorkspaceFixture, api: GraphQLClient
) -> None:
    some_events(api)
    last = last_sequence(api)
    age_events(workspace, days=31)
    run_retention(workspace)

    article = new_article(api, title="After the clean-up")

    [event] = all_events(api, sinceSequence=last)
    assert event["sequence"] == last + 1
    assert event["type"] == "article.created"
    assert event["data"]["article"]["id"] == article["id"]
    assert [e["sequence"] for e in all_events(api)] == [last + 1]
    refused = api(EVENTS, {"filter": {"sinceSequence": last - 1}})
    assert refused.codes == ["BAD_USER_INPUT"]
    assert refused.errors[0]["extensions"]["oldestSequence"] == last + 1


def test_retention_removes_only_what_is_old_and_refuses_exactly_below_the_oldest_kept(
    workspace: WorkspaceFixture, api: GraphQLClient
) -> None:
    some_events(api, articles=3, contacts=3)
    last = last_sequence(api)
    cut = last - 3
    age_events(workspace, days=31, up_to_sequence=cut)  # the last three stay recent

    run_retention(workspace)

    assert [e["sequence"] for e in all_events(api)] == [cut + 1, cut + 2, last]
    kept = api(EVENTS, {"filter": {"sinceSequence": cut}})
    assert kept.errors == []
    assert sequences(kept.data["events"]) == [cut + 1, cut + 2, last]
    refused = api(EVENTS, {"filter": {"sinceSequence": cut - 1}})
    assert refused.codes == ["BAD_USER_INPUT"]
    assert refused.errors[0]["extensions"]["oldestSequence"] == cut + 1


def test_events_younger_than_retention_stay(
    workspace: WorkspaceFixture, api: GraphQLClient
) -> None:
    some_events(api)
    before = all_events(api)
    age_events(workspace, days=29)

    run_retention(workspace)

    assert [e["id"] for e in all_events(api)] == [e["id"] for e in before]
    assert api(EVENTS, {"filter": {"sinceSequence": 0}}).errors == []


def test_retention_leaves_other_workspaces_alone(
    workspace: WorkspaceFixture, api: GraphQLClient, other_workspace: WorkspaceFixture
) -> None:
    theirs = other_workspace.client()
    some_events(theirs)
    their_events = all_events(theirs)
    some_events(api)
    age_events(workspace, days=31)

    run_retention(workspace)

    assert all_events(api) == []
    assert all_events(theirs) == their_events
