"""A contact or a member shows who they are wherever they appear, and how to reach them only
to a key that may read that kind of person (issue #38, docs/security.md): a contact's fields
beyond `id` need `contacts:read`, a member's beyond `id` and `name` need `members:read`.
Each surface is read with a key of `issues:read` alone and with one that also reads
contacts and members, by the compiled path where it covers the document and by the
executor where it does not."""

from __future__ import annotations

from typing import Any

import pytest

from tests.client import Answer, GraphQLClient
from tests.conftest import WorkspaceFixture
from tests.graphql.people import AGENT, NARROW, REQUESTER, WIDE, Desk, make_desk


@pytest.fixture
def desk(workspace: WorkspaceFixture) -> Desk:
    return make_desk(workspace)


def compiled(client: GraphQLClient, query: str, variables: dict[str, Any]) -> Answer:
    """The answer by the compiled path when it covers the document for this key (the
    second request: a process answers compiled only for a key it has seen), saying which
    path answered."""
    client(query, variables)
    return client(query, variables, extensions={"compiled": True})


def forbidden_at(answer: Answer, *path: str | int) -> dict[str, Any]:
    extensions: dict[str, Any] = answer.error_at(*path)["extensions"]
    return extensions


def refused_fields(answer: Answer) -> dict[tuple[str | int, ...], list[str]]:
    """Each FORBIDDEN error's path and the scopes it asks for."""
    return {
        tuple(error["path"]): error["extensions"]["requiredScopes"]
        for error in answer.errors
        if error["extensions"]["code"] == "FORBIDDEN"
    }


# Issue.requester: the relation itself needs contacts:read (CONTRACT section 6).

REQUESTER_QUERY = "query($id: ID!) { issue(id: $id) { id requester { id email name } } }"


def test_an_issue_s_requester_needs_contacts_read_on_both_paths(desk: Desk) -> None:
    narrow, wide = desk.client(NARROW), desk.client(WIDE)
    variables = {"id": desk.issue_id}

    refused = compiled(narrow, REQUESTER_QUERY, variables)
    shown = compiled(wide, REQUESTER_QUERY, variables)

    assert refused.data["issue"] == {"id": desk.issue_id, "requester": None}
    assert forbidden_at(refused, "issue", "requester") == {
        "code": "FORBIDDEN",
        "requiredScopes": ["contacts:read"],
    }
    assert shown.body["extensions"]["compiled"] is True
    assert shown.data["issue"]["requester"] == {
        "id": desk.contact_id,
        "email": REQUESTER,
        "name": "Maurice Moss",
    }


# Issue.assignee: a Member.

ASSIGNEE_QUERY = """query($id: ID!) {
  issue(id: $id) { id assignee { __typename ... on Member { id name email role createdAt } } }
}"""


def test_an_issue_s_assignee_shows_its_email_only_with_members_read(desk: Desk) -> None:
    narrow, wide = desk.client(NARROW), desk.client(WIDE)

    refused = compiled(narrow, ASSIGNEE_QUERY, {"id": desk.issue_id})
    shown = compiled(wide, ASSIGNEE_QUERY, {"id": desk.issue_id})

    assert refused.status == 200
    assert refused.body["extensions"]["compiled"] is False  # the executor says what is refused
    assert refused.data["issue"]["assignee"] == {
        "__typename": "Member",
        "id": desk.member_id,
        "name": "Roy Trenneman",
        "email": None,
        "role": None,
        "createdAt": None,
    }
    assert refused_fields(refused) == {
        ("issue", "assignee", field): ["members:read"] for field in ("email", "role", "createdAt")
    }
    assert AGENT not in str(refused.body)
    assert shown.body["extensions"]["compiled"] is True
    assignee = shown.data["issue"]["assignee"]
    assert (assignee["email"], assignee["role"]) == (AGENT, "agent")
    assert assignee["createdAt"] is not None
    assert shown.errors == []


# Message.author: a Contact or a Member.

AUTHORS_QUERY = """query($id: ID!) {
  issue(id: $id) {
    messages { edges { node { id author {
      __typename
      ... on Contact { id email contactName: name createdAt updatedAt }
      ... on Member { id name email role }
    } } } }
  }
}"""


def test_message_authors_show_their_emails_only_with_the_scopes(desk: Desk) -> None:
    narrow, wide = desk.client(NARROW), desk.client(WIDE)

    refused = compiled(narrow, AUTHORS_QUERY, {"id": desk.issue_id})
    shown = compiled(wide, AUTHORS_QUERY, {"id": desk.issue_id})

    assert refused.body["extensions"]["compiled"] is False
    contact, member = (e["node"]["author"] for e in refused.data["issue"]["messages"]["edges"])
    assert contact == {
        "__typename": "Contact",
        "id": desk.contact_id,
        "email": None,
        "contactName": None,
        "createdAt": None,
        "updatedAt": None,
    }
    assert member == {
        "__typename": "Member",
        "id": desk.member_id,
        "name": "Roy Trenneman",
        "email": None,
        "role": None,
    }
    author = ("issue", "messages", "edges")
    assert refused_fields(refused) == {
        **{
            (*author, 0, "node", "author", field): ["contacts:read"]
            for field in ("email", "contactName", "createdAt", "updatedAt")
        },
        **{(*author, 1, "node", "author", field): ["members:read"] for field in ("email", "role")},
    }
    assert REQUESTER not in str(refused.body) and AGENT not in str(refused.body)
    assert shown.body["extensions"]["compiled"] is True
    contact, member = (e["node"]["author"] for e in shown.data["issue"]["messages"]["edges"])
    assert (contact["email"], contact["contactName"]) == (REQUESTER, "Maurice Moss")
    assert (member["email"], member["role"]) == (AGENT, "agent")
    assert shown.errors == []


def test_a_contact_s_account_needs_contacts_read_too(desk: Desk) -> None:
    reader = desk.client(["accounts:read", "issues:read"])
    query = """query($id: ID!) { issue(id: $id) { messages(first: 1) { edges { node {
      author { ... on Contact { id account { id } } } } } } } }"""

    answer = compiled(reader, query, {"id": desk.issue_id})

    author = answer.data["issue"]["messages"]["edges"][0]["node"]["author"]
    assert author == {"id": desk.contact_id, "account": None}
    assert refused_fields(answer) == {
        ("issue", "messages", "edges", 0, "node", "author", "account"): ["contacts:read"]
    }


# Lists: the compiled path's other root.

LIST_QUERY = """{
  issues(first: 10) { edges { node {
    assignee { ... on Member { name email } }
    messages { edges { node { author { ... on Contact { email } ... on Member { email } } } } }
  } } }
}"""


def test_a_list_of_issues_hides_emails_without_the_scopes(desk: Desk) -> None:
    narrow, wide = desk.client(NARROW), desk.client(WIDE)

    refused = compiled(narrow, LIST_QUERY, {})
    shown = compiled(wide, LIST_QUERY, {})

    assert refused.body["extensions"]["compiled"] is False
    [row] = refused.data["issues"]["edges"]
    assert row["node"]["assignee"] == {"name": "Roy Trenneman", "email": None}
    authors = [e["node"]["author"] for e in row["node"]["messages"]["edges"]]
    assert authors == [{"email": None}, {"email": None}]
    node = ("issues", "edges", 0, "node")
    thread = (*node, "messages", "edges")
    assert refused_fields(refused) == {
        (*node, "assignee", "email"): ["members:read"],
        (*thread, 0, "node", "author", "email"): ["contacts:read"],
        (*thread, 1, "node", "author", "email"): ["members:read"],
    }
    assert REQUESTER not in str(refused.body) and AGENT not in str(refused.body)
    assert shown.body["extensions"]["compiled"] is True
    [row] = shown.data["issues"]["edges"]
    assert row["node"]["assignee"]["email"] == AGENT
    authors = [e["node"]["author"] for e in row["node"]["messages"]["edges"]]
    assert authors == [{"email": REQUESTER}, {"email": AGENT}]


# node(id): of a person (its type's own scope), and of objects that lead to people (a
# document the compiled path does not cover).

PERSON_NODE = """query($id: ID!) { node(id: $id) { id
  ... on Contact { email } ... on Member { name email } } }"""


@pytest.mark.parametrize("kind", ["Contact", "Member"])
def test_node_of_a_person_needs_the_scope_of_its_kind(desk: Desk, kind: str) -> None:
    person_id = desk.contact_id if kind == "Contact" else desk.member_id
    scope = "contacts:read" if kind == "Contact" else "members:read"

    refused = desk.client(NARROW)(PERSON_NODE, {"id": person_id})
    shown = desk.client(WIDE).ok(PERSON_NODE, {"id": person_id})

    assert refused.data["node"] is None
    assert forbidden_at(refused, "node") == {"code": "FORBIDDEN", "requiredScopes": [scope]}
    assert shown["node"]["email"] == (REQUESTER if kind == "Contact" else AGENT)


LEADING_NODES = """query($issue: ID!, $message: ID!, $reply: ID!) {
  issue: node(id: $issue) { ... on Issue { assignee { ... on Member { id email } } } }
  message: node(id: $message) { ... on Message { author { ... on Contact { id email } } } }
  reply: node(id: $reply) { ... on Message { author { ... on Member { id email } } } }
}"""


def test_node_of_an_issue_or_message_hides_the_people_it_leads_to(desk: Desk) -> None:
    variables = {
        "issue": desk.issue_id,
        "message": desk.contact_message_id,
        "reply": desk.member_message_id,
    }

    refused = compiled(desk.client(NARROW), LEADING_NODES, variables)
    shown = desk.client(WIDE).ok(LEADING_NODES, variables)

    assert refused.body["extensions"]["compiled"] is False
    assert refused.data == {
        "issue": {"assignee": {"id": desk.member_id, "email": None}},
        "message": {"author": {"id": desk.contact_id, "email": None}},
        "reply": {"author": {"id": desk.member_id, "email": None}},
    }
    assert refused_fields(refused) == {
        ("issue", "assignee", "email"): ["members:read"],
        ("message", "author", "email"): ["contacts:read"],
        ("reply", "author", "email"): ["members:read"],
    }
    assert shown == {
        "issue": {"assignee": {"id": desk.member_id, "email": AGENT}},
        "message": {"author": {"id": desk.contact_id, "email": REQUESTER}},
        "reply": {"author": {"id": desk.member_id, "email": AGENT}},
    }


CREATE_CONTACT = """mutation($input: CreateContactInput!) {
  createContact(input: $input) { contact { id email } error { code } } }"""


def test_a_mutation_payload_shows_people_under_the_same_rule(workspace: WorkspaceFixture) -> None:
    writer = workspace.client(workspace.create_key(["contacts:write"]))

    answer = writer(CREATE_CONTACT, {"input": {"email": "new@example.com"}})

    payload = answer.data["createContact"]
    assert payload["error"] is None
    assert payload["contact"]["id"].startswith("ct_")
    assert payload["contact"]["email"] is None
    assert forbidden_at(answer, "createContact", "contact", "email") == {
        "code": "FORBIDDEN",
        "requiredScopes": ["contacts:read"],
    }
