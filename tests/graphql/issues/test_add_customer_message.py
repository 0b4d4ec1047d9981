"""addCustomerMessage: the requester's own words through the API (a widget, a portal, a
bridge): public, authored by the requester, channel `api`; it moves a solved or pending issue
to open, and leaves one on hold."""

from __future__ import annotations

from typing import Any

from tests.client import GraphQLClient
from tests.conftest import WorkspaceFixture
from tests.graphql.events.helpers import all_events
from tests.graphql.issues.helpers import new_issue, reply, update

ADD = """
mutation($input: AddCustomerMessageInput!) {
  addCustomerMessage(input: $input) {
    issue { id status messageCount }
    message {
      id senderName body visibility channel email { status }
      author { __typename ... on Contact { email } }
    }
    error { code message fields { field code } }
  }
}
"""


def add(api: GraphQLClient, issue_id: str, body: str | None) -> dict[str, Any]:
    values: dict[str, Any] = {"issueId": issue_id}
    if body is not None:
        values["body"] = body
    payload: dict[str, Any] = api.ok(ADD, {"input": values})["addCustomerMessage"]
    return payload


def test_the_message_is_the_requesters_and_public(api: GraphQLClient) -> None:
    issue = new_issue(api, requesterEmail="moss@example.com", requesterName="Maurice Moss")

    added = add(api, issue["id"], "Is there any news?")

    assert added["error"] is None
    message = added["message"]
    assert message["senderName"] == "Maurice Moss"
    assert message["author"] == {"__typename": "Contact", "email": "moss@example.com"}
    assert (message["visibility"], message["channel"], message["email"]) == ("public", "api", None)
    assert added["issue"] == {"id": issue["id"], "status": "new", "messageCount": 2}
    [event] = all_events(api, types=["message.created"])
    assert event["data"]["message"]["channel"] == "api"
    assert event["data"]["message"]["id"] == message["id"]


def test_a_solved_issue_is_reopened_and_a_closed_one_refuses(api: GraphQLClient) -> None:
    issue = new_issue(api)
    assert reply(api, issue["id"], "Fixed.", status="solved")["error"] is None

    reopened = add(api, issue["id"], "No, it is not.")
    update(api, issue["id"], status="solved")
    update(api, issue["id"], status="closed")
    refused = add(api, issue["id"], "Hello?")

    assert reopened["issue"]["status"] == "open"
    changes = [e["data"]["changes"] for e in all_events(api, types=["issue.updated"])]
    assert {"status": {"from": "solved", "to": "open"}} in changes
    assert refused["message"] is None and refused["error"]["code"] == "ISSUE_CLOSED"


def test_a_pending_issue_opens_and_one_on_hold_stays(api: GraphQLClient) -> None:
    waiting_on_customer, waiting_on_vendor = new_issue(api), new_issue(api)
    reply(api, waiting_on_customer["id"], "Which printer is it?", status="pending")
    reply(api, waiting_on_vendor["id"], "We asked the vendor.", status="on_hold")

    answered = add(api, waiting_on_customer["id"], "The one on the third floor.")
    chased = add(api, waiting_on_vendor["id"], "Any news from them?")

    assert answered["issue"]["status"] == "open"
    assert chased["issue"]["status"] == "on_hold"
    changes = [e["data"]["changes"] for e in all_events(api, types=["issue.updated"])]
    assert {"status": {"from": "pending", "to": "open"}} in changes


def test_bad_input_is_refused(api: GraphQLClient) -> None:
    issue = new_issue(api)

    empty = add(api, issue["id"], "  ")
    unknown = add(api, "iss_01ARZ3NDEKTSV4RRFFQ69G5FAV", "Hi")

    assert empty["error"]["fields"] == [{"field": "body", "code": "REQUIRED"}]
    assert unknown["error"]["code"] == "NOT_FOUND"


def test_it_needs_thread_reply(workspace: WorkspaceFixture, api: GraphQLClient) -> None:
    issue = new_issue(api)
    reader = workspace.client(workspace.create_key(["issues:read", "issues:write"]))

    answer = reader(ADD, {"input": {"issueId": issue["id"], "body": "Hi"}})

    assert answer.codes == ["FORBIDDEN"]
    assert answer.errors[0]["extensions"]["requiredScopes"] == ["thread:reply"]


def test_replies_and_notes_say_they_came_over_the_api(api: GraphQLClient) -> None:
    issue = new_issue(api)
    reply(api, issue["id"], "On it.")

    thread = api.ok(
        "query($id: ID!) { issue(id: $id) { messages { edges { node { channel } } } } }",
        {"id": issue["id"]},
    )["issue"]["messages"]["edges"]

    assert [edge["node"]["channel"] for edge in thread] == ["api", "api"]
