"""replyToIssue: the machine user speaks, optionally moving the status in the same write."""

from __future__ import annotations

from tests.client import GraphQLClient
from tests.conftest import WorkspaceFixture
from tests.graphql.issues.helpers import new_issue, reply, update

THREAD = """
query($id: ID!) {
  issue(id: $id) { status messageCount messages(first: 10) { totalCount edges { node { senderName body } } } }
}
"""


def test_a_reply_is_sent_by_the_machine_user_and_joins_the_thread(api: GraphQLClient) -> None:
    issue_id = new_issue(api)["id"]

    payload = reply(api, issue_id, "Have you tried turning it off and on again?")

    assert payload["error"] is None
    assert payload["message"]["senderName"] == "Workspace API"
    assert payload["message"]["id"].startswith("msg_")
    assert payload["issue"]["messageCount"] == 2
    thread = api.ok(THREAD, {"id": issue_id})["issue"]
    assert [edge["node"]["senderName"] for edge in thread["messages"]["edges"]] == [
        "Maurice Moss",
        "Workspace API",
    ]
    assert thread["messages"]["totalCount"] == 2


def test_a_reply_can_move_the_status_in_the_same_write(api: GraphQLClient) -> None:
    issue_id = new_issue(api)["id"]

    payload = reply(api, issue_id, "Waiting for your answer.", status="PENDING")

    assert payload["error"] is None
    assert payload["issue"]["status"] == "pending"


def test_a_refused_status_move_adds_no_message(api: GraphQLClient) -> None:
    issue_id = new_issue(api)["id"]

    payload = reply(api, issue_id, "Closing.", status="closed")

    assert payload["error"]["code"] == "INVALID_STATUS_TRANSITION"
    assert payload["message"] is None
    thread = api.ok(THREAD, {"id": issue_id})["issue"]
    assert thread["messageCount"] == 1
    assert len(thread["messages"]["edges"]) == 1


def test_a_closed_issue_takes_no_reply(api: GraphQLClient) -> None:
    issue_id = new_issue(api)["id"]
    update(api, issue_id, status="solved")
    update(api, issue_id, status="closed")

    payload = reply(api, issue_id, "One more thing")

    assert payload["error"]["code"] == "ISSUE_CLOSED"


def test_an_empty_or_oversize_body_is_refused(api: GraphQLClient) -> None:
    issue_id = new_issue(api)["id"]

    assert reply(api, issue_id, None)["error"]["fields"] == [{"field": "body", "code": "REQUIRED"}]
    assert reply(api, issue_id, " ")["error"]["fields"] == [{"field": "body", "code": "REQUIRED"}]
    too_long = reply(api, issue_id, "x" * 65_537)["error"]
    assert too_long["fields"] == [{"field": "body", "code": "TOO_LONG"}]


def test_the_sender_is_the_name_of_the_keys_machine_user(workspace: WorkspaceFixture) -> None:
    api = workspace.client()
    machine_user = api.ok(
        'mutation { createMachineUser(input: {name: "Helpdesk bot"}) { machineUser { id } } }'
    )["createMachineUser"]["machineUser"]
    key = api.ok(
        """mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { secret } }""",
        {
            "input": {
                "machineUserId": machine_user["id"],
                "name": "bot",
                "scopes": ["thread:reply", "issues:write"],
            }
        },
    )["createApiKey"]["secret"]
    bot = workspace.client(key)
    issue_id = new_issue(bot)["id"]

    payload = reply(bot, issue_id, "On it.")

    assert payload["message"]["senderName"] == "Helpdesk bot"
