"""issue, issueByNumber, issues, and the messages connection (CONTRACT sections 3 and 5)."""

from __future__ import annotations

import time

import pytest

from tests.client import GraphQLClient
from tests.conftest import WorkspaceFixture
from tests.graphql.issues.helpers import new_issue, reply, update

FULL = """
query($id: ID!) {
  issue(id: $id) {
    id ticketNumber subject status priority createdAt updatedAt messageCount
    requester { email name }
    messages(first: 5) { totalCount edges { cursor node { id senderName body createdAt } }
      pageInfo { hasNextPage endCursor } }
  }
}
"""
PAGE = """
query($id: ID!, $first: Int, $after: String) {
  issue(id: $id) {
    messages(first: $first, after: $after) {
      totalCount edges { cursor node { body } } pageInfo { hasNextPage endCursor }
    }
  }
}
"""
LIST = """
query($first: Int, $after: String, $filter: IssueFilter, $orderBy: IssueOrder) {
  issues(first: $first, after: $after, filter: $filter, orderBy: $orderBy) {
    totalCount edges { cursor node { ticketNumber status priority } }
    pageInfo { hasNextPage endCursor }
  }
}
"""


def test_an_issue_shows_every_field(api: GraphQLClient) -> None:
    created = new_issue(api, priority="low")

    issue = api.ok(FULL, {"id": created["id"]})["issue"]

    assert issue["id"] == created["id"]
    assert issue["ticketNumber"] == created["ticketNumber"]
    assert issue["status"] == "new"
    assert issue["priority"] == "low"
    assert issue["messageCount"] == 1
    assert issue["createdAt"] == issue["updatedAt"]
    assert issue["requester"] == {"email": "moss@example.com", "name": "Maurice Moss"}
    assert issue["messages"]["totalCount"] == 1
    assert issue["messages"]["pageInfo"]["hasNextPage"] is False


def test_issue_by_number_finds_the_same_issue(api: GraphQLClient) -> None:
    created = new_issue(api)

    found = api.ok(
        "query($n: Int!) { issueByNumber(ticketNumber: $n) { id } }", {"n": created["ticketNumber"]}
    )

    assert found["issueByNumber"]["id"] == created["id"]


@pytest.mark.parametrize(
    "issue_id",
    [
        "iss_01JD0000000000000000000000",  # well-formed, of nothing
        "mu_01JD0000000000000000000000",  # well-formed, another type
        "not-an-id",
        "",
    ],
)
def test_an_unknown_id_answers_null_with_not_found(api: GraphQLClient, issue_id: str) -> None:
    answer = api("query($id: ID!) { issue(id: $id) { id } apiInfo }", {"id": issue_id})

    assert answer.status == 200
    assert answer.data["issue"] is None
    assert answer.data["apiInfo"] is not None
    assert answer.error_at("issue")["extensions"]["code"] == "NOT_FOUND"


def test_an_unknown_ticket_number_answers_not_found(api: GraphQLClient) -> None:
    answer = api("{ issueByNumber(ticketNumber: 999) { id } }")

    assert answer.data["issueByNumber"] is None
    assert answer.codes == ["NOT_FOUND"]


def test_an_issue_of_another_workspace_is_not_found(
    api: GraphQLClient, other_workspace: WorkspaceFixture
) -> None:
    theirs = new_issue(other_workspace.client())
    mine = new_issue(api)

    by_id = api("query($id: ID!) { issue(id: $id) { id } }", {"id": theirs["id"]})
    by_node = api("query($id: ID!) { node(id: $id) { id } }", {"id": theirs["id"]})
    listed = api.ok("{ issues { totalCount edges { node { id } } } }")["issues"]
    changed = update(api, theirs["id"], status="open")
    replied = reply(api, theirs["id"], "hello")

    assert by_id.data["issue"] is None
    assert by_id.codes == ["NOT_FOUND"]
    assert by_node.codes == ["NOT_FOUND"]
    assert [edge["node"]["id"] for edge in listed["edges"]] == [mine["id"]]
    assert changed["error"]["code"] == replied["error"]["code"] == "NOT_FOUND"
    # The other workspace's issue is untouched.
    their_view = other_workspace.client().ok(
        "query($id: ID!) { issue(id: $id) { status messageCount } }", {"id": theirs["id"]}
    )
    assert their_view["issue"] == {"status": "new", "messageCount": 1}


def test_messages_page_forward_with_cursors(api: GraphQLClient) -> None:
    issue_id = new_issue(api, body="m0")["id"]
    for index in range(1, 5):
        reply(api, issue_id, f"m{index}")

    seen: list[str] = []
    after = None
    while True:
        page = api.ok(PAGE, {"id": issue_id, "first": 2, "after": after})["issue"]["messages"]
        assert page["totalCount"] == 5
        seen += [edge["node"]["body"] for edge in page["edges"]]
        if not page["pageInfo"]["hasNextPage"]:
            break
        after = page["pageInfo"]["endCursor"]

    assert seen == ["m0", "m1", "m2", "m3", "m4"]


def test_cursors_stay_stable_while_new_messages_arrive(api: GraphQLClient) -> None:
    issue_id = new_issue(api, body="m0")["id"]
    reply(api, issue_id, "m1")
    first_page = api.ok(PAGE, {"id": issue_id, "first": 1})["issue"]["messages"]

    reply(api, issue_id, "m2")
    rest = api.ok(
        PAGE, {"id": issue_id, "first": 10, "after": first_page["pageInfo"]["endCursor"]}
    )["issue"]["messages"]

    assert [edge["node"]["body"] for edge in rest["edges"]] == ["m1", "m2"]
    assert rest["totalCount"] == 3


@pytest.mark.parametrize("first", [-1, 101])
def test_page_sizes_outside_0_to_100_are_refused(api: GraphQLClient, first: int) -> None:
    issue_id = new_issue(api)["id"]

    on_list = api(LIST, {"first": first})
    on_messages = api(PAGE, {"id": issue_id, "first": first})

    assert on_list.codes == ["BAD_USER_INPUT"]
    assert on_list.data["issues"] is None
    assert on_messages.codes == ["BAD_USER_INPUT"]


@pytest.mark.parametrize("first", [0, 100])
def test_page_sizes_0_and_100_are_accepted(api: GraphQLClient, first: int) -> None:
    new_issue(api)

    page = api.ok(LIST, {"first": first})["issues"]

    assert len(page["edges"]) == min(first, 1)
    assert page["totalCount"] == 1


def test_a_cursor_not_made_by_the_api_is_refused(api: GraphQLClient) -> None:
    answer = api(LIST, {"after": "definitely-not-a-cursor"})

    assert answer.codes == ["BAD_USER_INPUT"]


def test_first_defaults_to_25(api: GraphQLClient) -> None:
    for _ in range(26):
        new_issue(api)

    page = api.ok(LIST)["issues"]

    assert len(page["edges"]) == 25
    assert page["pageInfo"]["hasNextPage"] is True
    assert page["totalCount"] == 26


def test_issues_list_in_creation_order_and_pages_without_gaps(api: GraphQLClient) -> None:
    for _ in range(7):
        new_issue(api)

    numbers: list[int] = []
    after = None
    while True:
        page = api.ok(LIST, {"first": 3, "after": after})["issues"]
        numbers += [edge["node"]["ticketNumber"] for edge in page["edges"]]
        if not page["pageInfo"]["hasNextPage"]:
            break
        after = page["pageInfo"]["endCursor"]
    newest_first = api.ok(LIST, {"first": 3, "orderBy": "CREATED_AT_DESC"})["issues"]

    assert numbers == [1, 2, 3, 4, 5, 6, 7]
    assert [edge["node"]["ticketNumber"] for edge in newest_first["edges"]] == [7, 6, 5]


def test_issues_filter_by_status_priority_and_requester(api: GraphQLClient) -> None:
    first = new_issue(api, priority="urgent", requesterEmail="a@example.com")
    second = new_issue(api, priority="low", requesterEmail="B@example.com")
    new_issue(api, priority="low", requesterEmail="a@example.com")
    update(api, first["id"], status="open")
    update(api, second["id"], status="pending")

    def numbers(where: dict[str, object]) -> tuple[int, list[int]]:
        page = api.ok(LIST, {"filter": where})["issues"]
        return page["totalCount"], [edge["node"]["ticketNumber"] for edge in page["edges"]]

    assert numbers({"status": "open"}) == (1, [1])
    assert numbers({"status": ["open", "pending"]}) == (2, [1, 2])
    assert numbers({"priority": "LOW"}) == (2, [2, 3])
    assert numbers({"requesterEmail": "A@EXAMPLE.COM"}) == (2, [1, 3])
    assert numbers({"requesterEmail": "b@example.com", "status": "pending"}) == (1, [2])
    assert numbers({"requesterEmail": "nobody@example.com"}) == (0, [])


def test_issues_filter_by_creation_time(api: GraphQLClient) -> None:
    new_issue(api)
    time.sleep(0.002)  # timestamps have millisecond precision
    cutoff = api.ok(
        "query($id: ID!) { issue(id: $id) { createdAt } }", {"id": new_issue(api)["id"]}
    )["issue"]["createdAt"]
    time.sleep(0.002)
    new_issue(api)

    after = api.ok(LIST, {"filter": {"createdAfter": cutoff}})["issues"]
    before = api.ok(LIST, {"filter": {"createdBefore": cutoff}})["issues"]

    assert [e["node"]["ticketNumber"] for e in after["edges"]] == [2, 3]
    assert [e["node"]["ticketNumber"] for e in before["edges"]] == [1]


def test_an_unknown_status_in_the_filter_is_refused(api: GraphQLClient) -> None:
    answer = api(LIST, {"filter": {"status": "escalated"}})

    assert answer.codes == ["BAD_USER_INPUT"]
