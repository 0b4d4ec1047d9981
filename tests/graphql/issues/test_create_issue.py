"""createIssue: the seed's quickstart, validation, requester contacts, scopes."""

from __future__ import annotations

import pytest
from sqlalchemy import insert

from supportdesk.db.tables import accounts
from supportdesk.domain.clock import now
from supportdesk.domain.ids import new_id
from tests.client import GraphQLClient
from tests.conftest import WorkspaceFixture

CREATE = """
mutation CreateIssue($input: CreateIssueInput!) {
  createIssue(input: $input) {
    issue { id ticketNumber status priority subject }
    error { code message fields { field code } }
  }
}
"""
READ = """
query Issue($id: ID!) {
  issue(id: $id) {
    subject status priority
    messages(first: 10) { edges { node { senderName body createdAt } } }
  }
}
"""


def issue_input(**overrides: object) -> dict[str, object]:
    values: dict[str, object] = {
        "subject": "Cannot log in",
        "body": "The login page says my password is wrong.",
        "requesterEmail": "ada@example.com",
        "requesterName": "Ada Lovelace",
        "priority": "high",
    }
    values.update(overrides)
    return {key: value for key, value in values.items() if value is not None}


def create(api: GraphQLClient, **overrides: object) -> dict[str, object]:
    return api.ok(CREATE, {"input": issue_input(**overrides)})["createIssue"]


def test_the_seed_quickstart_works_verbatim(api: GraphQLClient) -> None:
    created = api.ok(
        """mutation($input: CreateIssueInput!) {
          createIssue(input: $input) { issue { id ticketNumber } error { code message } }
        }""",
        {"input": issue_input()},
    )["createIssue"]

    assert created["error"] is None
    assert created["issue"]["ticketNumber"] == 1
    assert created["issue"]["id"].startswith("iss_")

    issue = api.ok(READ, {"id": created["issue"]["id"]})["issue"]
    assert issue["subject"] == "Cannot log in"
    assert issue["status"] == "new"
    assert issue["priority"] == "high"
    [message] = [edge["node"] for edge in issue["messages"]["edges"]]
    assert message["senderName"] == "Ada Lovelace"
    assert message["body"] == "The login page says my password is wrong."
    assert message["createdAt"].endswith("Z")
    assert len(message["createdAt"]) == len("2026-11-22T13:45:07.123Z")


def test_ticket_numbers_count_up_per_workspace(
    api: GraphQLClient, other_workspace: WorkspaceFixture
) -> None:
    numbers = [create(api)["issue"]["ticketNumber"] for _ in range(3)]  # type: ignore[index]
    other = create(other_workspace.client())["issue"]

    assert numbers == [1, 2, 3]
    assert other["ticketNumber"] == 1  # type: ignore[index]


@pytest.mark.parametrize(
    ("given", "stored"),
    [("HIGH", "high"), ("Urgent", "urgent"), (" low ", "low"), (None, "normal")],
)
def test_priority_is_case_insensitive_and_defaults_to_normal(
    api: GraphQLClient, given: str | None, stored: str
) -> None:
    issue = create(api, priority=given)["issue"]

    assert issue["priority"] == stored  # type: ignore[index]
    assert issue["status"] == "new"  # type: ignore[index]


@pytest.mark.parametrize(
    ("overrides", "field", "code"),
    [
        ({"subject": None}, "subject", "REQUIRED"),
        ({"subject": "   "}, "subject", "REQUIRED"),
        ({"subject": "x" * 256}, "subject", "TOO_LONG"),
        ({"body": None}, "body", "REQUIRED"),
        ({"body": ""}, "body", "REQUIRED"),
        ({"body": "x" * 65_537}, "body", "TOO_LONG"),
        ({"requesterEmail": None}, "requesterEmail", "REQUIRED"),
        ({"requesterEmail": "not-an-address"}, "requesterEmail", "INVALID"),
        ({"requesterEmail": "a@b"}, "requesterEmail", "INVALID"),
        ({"requesterEmail": "a" * 250 + "@example.com"}, "requesterEmail", "TOO_LONG"),
        ({"requesterName": "n" * 201}, "requesterName", "TOO_LONG"),
        ({"priority": "critical"}, "priority", "INVALID"),
    ],
)
def test_bad_input_is_refused_in_the_payload(
    api: GraphQLClient, overrides: dict[str, object], field: str, code: str
) -> None:
    answer = api(CREATE, {"input": issue_input(**overrides)})

    assert answer.status == 200
    payload = answer.data["createIssue"]
    assert payload["issue"] is None
    assert payload["error"]["code"] == "VALIDATION_FAILED"
    assert {"field": field, "code": code} in payload["error"]["fields"]
    assert api.ok("{ issues { totalCount } }")["issues"]["totalCount"] == 0


def test_every_bad_field_is_named_at_once(api: GraphQLClient) -> None:
    payload = api.ok(CREATE, {"input": {"subject": "", "requesterEmail": "nope"}})["createIssue"]

    fields = {(f["field"], f["code"]) for f in payload["error"]["fields"]}
    assert fields == {("subject", "REQUIRED"), ("body", "REQUIRED"), ("requesterEmail", "INVALID")}


def test_the_message_says_what_each_bad_field_takes(api: GraphQLClient) -> None:
    given = issue_input(subject="x" * 256, priority="critical", requesterEmail="a@b")

    message = api.ok(CREATE, {"input": given})["createIssue"]["error"]["message"]

    assert message.startswith("Invalid input: priority, requesterEmail, subject.")
    assert "subject takes at most 255 characters." in message
    assert "priority is one of low, normal, high, urgent." in message
    assert "requesterEmail is not an e-mail address." in message


def test_the_sender_is_the_email_when_no_name_is_given(api: GraphQLClient) -> None:
    issue_id = create(api, requesterName=None)["issue"]["id"]  # type: ignore[index]

    issue = api.ok(READ, {"id": issue_id})["issue"]
    assert issue["messages"]["edges"][0]["node"]["senderName"] == "ada@example.com"


REQUESTER = "query($id: ID!) { issue(id: $id) { requester { id email name } } }"


def test_the_requester_becomes_one_contact_whatever_the_case_of_the_email(
    api: GraphQLClient,
) -> None:
    first = create(api, requesterEmail="Grace@Example.com", requesterName=None)["issue"]
    second = create(api, requesterEmail="grace@EXAMPLE.COM", requesterName="Grace Hopper")["issue"]

    one = api.ok(REQUESTER, {"id": first["id"]})["issue"]["requester"]  # type: ignore[index]
    two = api.ok(REQUESTER, {"id": second["id"]})["issue"]["requester"]  # type: ignore[index]
    assert one["id"] == two["id"]
    assert one["email"] == "Grace@Example.com"
    assert two["name"] == "Grace Hopper"  # a missing name is filled in, never overwritten


def test_a_new_requester_is_linked_to_the_account_of_their_domain(
    workspace: WorkspaceFixture, api: GraphQLClient
) -> None:
    moment = now()
    account_id = new_id("Account", moment)

    async def add_account() -> None:
        async with workspace.server.db.transaction() as connection:
            await connection.execute(
                insert(accounts).values(
                    workspace_id=workspace.id,
                    id=account_id,
                    name="Acme",
                    domain="acme.com",
                    created_at=moment,
                    updated_at=moment,
                )
            )

    workspace.server.call(add_account())

    linked = create(api, requesterEmail="Wile@ACME.com")["issue"]
    unlinked = create(api, requesterEmail="road@runner.acme.com")["issue"]

    async def account_of(issue_id: str) -> str | None:
        from supportdesk.domain import contacts, issues

        db = workspace.server.db
        issue = (await issues.fetch_issues(db, workspace.id, [issue_id]))[issue_id]
        found = await contacts.get_contacts(db, workspace.id, [issue.requester_id])
        return found[issue.requester_id].account_id

    assert workspace.server.call(account_of(linked["id"])) == account_id  # type: ignore[index]
    assert workspace.server.call(account_of(unlinked["id"])) is None  # type: ignore[index]
