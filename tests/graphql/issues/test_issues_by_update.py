"""issues(filter: {updatedAfter, updatedBefore}, orderBy: UPDATED_AT_ASC | UPDATED_AT_DESC):
polling for changes without events (CONTRACT section 11)."""

from __future__ import annotations

import time
from datetime import timedelta
from typing import Any

from sqlalchemy import insert

from supportdesk.db.tables import issues
from supportdesk.domain.clock import now
from supportdesk.domain.ids import new_id
from tests.client import GraphQLClient
from tests.conftest import WorkspaceFixture
from tests.graphql.issues.helpers import new_issue, reply, update

LIST = """
query($first: Int, $after: String, $filter: IssueFilter, $orderBy: IssueOrder) {
  issues(first: $first, after: $after, filter: $filter, orderBy: $orderBy) {
    totalCount edges { cursor node { id ticketNumber subject updatedAt } }
    pageInfo { hasNextPage endCursor }
  }
}
"""
ISSUE = "query($id: ID!) { issue(id: $id) { createdAt updatedAt requester { id } } }"


def tick() -> None:
    """Timestamps have millisecond precision: the next change gets a later one."""
    time.sleep(0.003)


def numbers(api: GraphQLClient, **variables: Any) -> tuple[int, list[int]]:
    page = api.ok(LIST, variables)["issues"]
    return page["totalCount"], [edge["node"]["ticketNumber"] for edge in page["edges"]]


def walk(api: GraphQLClient, order: str, first: int, between_pages: Any = None) -> list[int]:
    """Every page of the list in `order`; `between_pages(n)` runs after page n."""
    seen: list[int] = []
    after = None
    for page_number in range(1, 100):
        page = api.ok(LIST, {"first": first, "after": after, "orderBy": order})["issues"]
        seen += [edge["node"]["ticketNumber"] for edge in page["edges"]]
        if not page["pageInfo"]["hasNextPage"]:
            return seen
        if between_pages:
            between_pages(page_number)
        after = page["pageInfo"]["endCursor"]
    raise AssertionError("the list did not end")


def test_updated_at_moves_on_every_change_a_new_message_included(api: GraphQLClient) -> None:
    issue_id = new_issue(api)["id"]
    created = api.ok(ISSUE, {"id": issue_id})["issue"]
    tick()

    updated = update(api, issue_id, subject="Printer still on fire")["issue"]
    tick()
    unchanged = update(api, issue_id, subject="Printer still on fire")["issue"]
    tick()
    replied = reply(api, issue_id, "Have you tried turning it off and on again?")
    after_reply = api.ok(ISSUE, {"id": issue_id})["issue"]

    assert created["updatedAt"] == created["createdAt"]
    assert updated["updatedAt"] > created["updatedAt"]
    assert unchanged["updatedAt"] == updated["updatedAt"]  # a change of nothing is no change
    assert after_reply["updatedAt"] > updated["updatedAt"]
    assert after_reply["updatedAt"] == replied["message"]["createdAt"]
    assert after_reply["createdAt"] == created["createdAt"]


def test_updated_after_and_before_are_exclusive_and_combine_with_other_filters(
    api: GraphQLClient,
) -> None:
    stamps = []
    for _ in range(3):
        stamps.append(api.ok(ISSUE, {"id": new_issue(api)["id"]})["issue"]["updatedAt"])
        tick()
    first, middle, last = stamps
    update(api, new_issue(api)["id"], status="open")  # 4, changed last

    assert numbers(api, filter={"updatedAfter": middle}) == (2, [3, 4])
    assert numbers(api, filter={"updatedBefore": middle}) == (1, [1])
    assert numbers(api, filter={"updatedAfter": first, "updatedBefore": last}) == (1, [2])
    assert numbers(api, filter={"updatedAfter": first, "status": "new"}) == (2, [2, 3])
    assert numbers(api, filter={"updatedAfter": middle, "updatedBefore": middle}) == (0, [])


def test_update_order_ascending_and_descending(api: GraphQLClient) -> None:
    ids = [new_issue(api)["id"] for _ in range(4)]
    tick()
    reply(api, ids[1], "a reply")
    tick()
    update(api, ids[0], priority="high")

    assert numbers(api, orderBy="UPDATED_AT_ASC") == (4, [3, 4, 2, 1])
    assert numbers(api, orderBy="UPDATED_AT_DESC") == (4, [1, 2, 4, 3])
    assert walk(api, "UPDATED_AT_ASC", first=1) == [3, 4, 2, 1]
    assert walk(api, "UPDATED_AT_DESC", first=3) == [1, 2, 4, 3]


def test_paging_in_update_order_reads_each_issue_once_and_each_change_after_it_was_read(
    api: GraphQLClient,
) -> None:
    """In UPDATED_AT_ASC a change moves the issue to the end of the list: an issue changed
    before the walk reaches it is read once, in its new state; one changed after it was
    read is read again at the end (the walk, like a poller, sees every change). Nothing is
    skipped."""
    ids = [new_issue(api)["id"] for _ in range(6)]

    def change_two(page_number: int) -> None:
        if page_number == 1:  # issues 1 and 2 are read
            tick()
            update(api, ids[0], subject="read, then changed")
            update(api, ids[3], subject="changed before it was read")

    seen = walk(api, "UPDATED_AT_ASC", first=2, between_pages=change_two)

    assert seen == [1, 2, 3, 5, 6, 1, 4]


def test_a_poller_resumes_after_what_it_saw(api: GraphQLClient) -> None:
    """A poller keeps the last updatedAt it read and asks for what changed after it: an
    issue it already saw comes back once it changes again."""
    ids = [new_issue(api)["id"] for _ in range(3)]
    page = api.ok(LIST, {"orderBy": "UPDATED_AT_ASC"})["issues"]
    last_seen = page["edges"][-1]["node"]["updatedAt"]
    cursor = page["pageInfo"]["endCursor"]
    tick()

    nothing_yet = numbers(api, orderBy="UPDATED_AT_ASC", filter={"updatedAfter": last_seen})
    reply(api, ids[0], "news")
    by_time = numbers(api, orderBy="UPDATED_AT_ASC", filter={"updatedAfter": last_seen})
    by_cursor = numbers(api, orderBy="UPDATED_AT_ASC", after=cursor)

    assert nothing_yet == (0, [])
    assert by_time == (1, [1])
    assert by_cursor == (3, [1])  # totalCount counts the list, not what is left of it


def test_a_cursor_and_the_filter_bound_on_its_side_both_hold(api: GraphQLClient) -> None:
    for _ in range(4):
        new_issue(api)
        tick()
    up = api.ok(LIST, {"orderBy": "UPDATED_AT_ASC"})["issues"]["edges"]  # 1, 2, 3, 4
    down = api.ok(LIST, {"orderBy": "UPDATED_AT_DESC"})["issues"]["edges"]  # 4, 3, 2, 1

    def after(edge: dict[str, Any], order: str, **where: str) -> list[int]:
        return numbers(api, orderBy=order, after=edge["cursor"], filter=where)[1]

    def changed(edge: dict[str, Any]) -> str:
        return str(edge["node"]["updatedAt"])

    # Whichever of the cursor and the bound is the tighter, both are obeyed.
    assert after(up[0], "UPDATED_AT_ASC", updatedAfter=changed(up[2])) == [4]
    assert after(up[2], "UPDATED_AT_ASC", updatedAfter=changed(up[0])) == [4]
    assert after(down[0], "UPDATED_AT_DESC", updatedBefore=changed(down[2])) == [1]
    assert after(down[2], "UPDATED_AT_DESC", updatedBefore=changed(down[0])) == [1]


def test_a_cursor_is_refused_in_another_order(api: GraphQLClient) -> None:
    for _ in range(3):
        new_issue(api)
    cursors = {
        order: api.ok(LIST, {"first": 1, "orderBy": order})["issues"]["pageInfo"]["endCursor"]
        for order in ("CREATED_AT_ASC", "UPDATED_AT_ASC", "UPDATED_AT_DESC")
    }

    def refused(order: str, cursor: str) -> bool:
        answer = api(LIST, {"first": 1, "after": cursor, "orderBy": order})
        return answer.codes == ["BAD_USER_INPUT"] and answer.data["issues"] is None

    assert refused("CREATED_AT_ASC", cursors["UPDATED_AT_ASC"])
    assert refused("CREATED_AT_DESC", cursors["UPDATED_AT_DESC"])
    assert refused("UPDATED_AT_ASC", cursors["CREATED_AT_ASC"])
    assert refused("UPDATED_AT_ASC", cursors["UPDATED_AT_DESC"])
    assert refused("UPDATED_AT_DESC", cursors["UPDATED_AT_ASC"])
    assert refused("UPDATED_AT_ASC", "definitely-not-a-cursor")
    # Each order still takes its own.
    for order, cursor in cursors.items():
        assert api(LIST, {"first": 1, "after": cursor, "orderBy": order}).codes == []


def test_issues_changed_in_the_same_instant_are_ordered_by_id(
    workspace: WorkspaceFixture, api: GraphQLClient
) -> None:
    """Many changes share a millisecond in a busy workspace; the cursor holds the id beside
    the time, so pages neither repeat nor skip them. (The API cannot make changes in one
    instant at will: these issues are written straight to the database.)"""
    requester_id = api.ok(ISSUE, {"id": new_issue(api)["id"]})["issue"]["requester"]["id"]
    moment = now()
    rows = [
        {
            "workspace_id": workspace.id,
            "id": new_id("Issue", moment),
            "ticket_number": number,
            "subject": f"issue {number}",
            "status": "new",
            "priority": "normal",
            "requester_id": requester_id,
            "message_count": 0,
            "created_at": moment,
            "updated_at": moment + timedelta(milliseconds=number % 3),
        }
        for number in range(2, 14)
    ]

    async def insert_rows() -> None:
        async with workspace.server.db.transaction() as connection:
            await connection.execute(insert(issues), rows)

    workspace.server.call(insert_rows())
    by_change = sorted(rows, key=lambda row: (row["updated_at"], row["id"]))
    expected = [row["ticket_number"] for row in by_change]

    ascending = walk(api, "UPDATED_AT_ASC", first=4)
    descending = walk(api, "UPDATED_AT_DESC", first=5)

    assert ascending[1:] == expected  # issue 1, made through the API, changed first
    assert descending[:-1] == expected[::-1]
