"""contact, contactByEmail, contacts, node: reading contacts with their account and issues."""

from __future__ import annotations

from tests.client import GraphQLClient
from tests.graphql.accounts.helpers import new_account
from tests.graphql.contacts.helpers import new_contact
from tests.graphql.issues.helpers import new_issue

FULL = """
query($id: ID!) {
  contact(id: $id) {
    id email name createdAt updatedAt
    account { id name domain }
    issues(first: 2) {
      totalCount edges { cursor node { subject requester { id } } } pageInfo { hasNextPage endCursor }
    }
  }
}
"""
LIST = """
query($first: Int, $after: String, $filter: ContactFilter) {
  contacts(first: $first, after: $after, filter: $filter) {
    totalCount edges { cursor node { email } } pageInfo { hasNextPage endCursor }
  }
}
"""


def test_a_contact_shows_its_account_and_its_issues(api: GraphQLClient) -> None:
    account = new_account(api, name="Acme", domain="acme.com")
    subjects = ["One", "Two", "Three"]
    for subject in subjects:
        new_issue(api, subject=subject, requesterEmail="wile@acme.com", requesterName="Wile")
    new_issue(api, subject="Not theirs", requesterEmail="road@runner.org")
    contact_id = api.ok('{ contactByEmail(email: "WILE@acme.com") { id } }')["contactByEmail"]["id"]

    contact = api.ok(FULL, {"id": contact_id})["contact"]

    assert contact["email"] == "wile@acme.com"
    assert contact["name"] == "Wile"
    assert contact["account"] == {"id": account["id"], "name": "Acme", "domain": "acme.com"}
    issues = contact["issues"]
    assert issues["totalCount"] == 3
    assert [edge["node"]["subject"] for edge in issues["edges"]] == ["One", "Two"]
    assert {edge["node"]["requester"]["id"] for edge in issues["edges"]} == {contact_id}
    assert issues["pageInfo"]["hasNextPage"] is True
    rest = api.ok(
        """query($id: ID!, $after: String) { contact(id: $id) {
          issues(first: 2, after: $after) { edges { node { subject } } pageInfo { hasNextPage } } } }""",
        {"id": contact_id, "after": issues["pageInfo"]["endCursor"]},
    )["contact"]["issues"]
    assert [edge["node"]["subject"] for edge in rest["edges"]] == ["Three"]
    assert rest["pageInfo"]["hasNextPage"] is False


def test_a_contact_without_account_or_issues(api: GraphQLClient) -> None:
    contact = new_contact(api, email="lonely@example.com")

    found = api.ok(FULL, {"id": contact["id"]})["contact"]

    assert found["account"] is None
    assert found["issues"] == {
        "totalCount": 0,
        "edges": [],
        "pageInfo": {"hasNextPage": False, "endCursor": None},
    }


def test_an_unknown_id_answers_null_with_not_found(api: GraphQLClient) -> None:
    for contact_id in (
        "ct_01JD0000000000000000000000",  # well-formed, of nothing
        "acc_01JD0000000000000000000000",  # well-formed, another type
        "not-an-id",
        "",
    ):
        answer = api("query($id: ID!) { contact(id: $id) { id } apiInfo }", {"id": contact_id})

        assert answer.status == 200, contact_id
        assert answer.data["contact"] is None, contact_id
        assert answer.data["apiInfo"] is not None  # the rest of the query answers
        assert answer.error_at("contact")["extensions"]["code"] == "NOT_FOUND"


def test_contact_by_email_ignores_case_and_answers_not_found_otherwise(
    api: GraphQLClient,
) -> None:
    contact = new_contact(api, email="Jen@Example.com")

    found = api.ok('{ contactByEmail(email: " jen@EXAMPLE.com ") { id email } }')
    answer = api('{ contactByEmail(email: "nobody@example.com") { id } }')

    assert found["contactByEmail"] == {"id": contact["id"], "email": "Jen@Example.com"}
    assert answer.data["contactByEmail"] is None
    assert answer.error_at("contactByEmail")["extensions"]["code"] == "NOT_FOUND"


def test_contacts_page_in_creation_order(api: GraphQLClient) -> None:
    emails = [f"person{index}@example.com" for index in range(5)]
    for email in emails:
        new_contact(api, email=email)

    first = api.ok(LIST, {"first": 2})["contacts"]
    second = api.ok(LIST, {"first": 2, "after": first["pageInfo"]["endCursor"]})["contacts"]
    last = api.ok(LIST, {"first": 2, "after": second["pageInfo"]["endCursor"]})["contacts"]

    pages = [first, second, last]
    assert [edge["node"]["email"] for page in pages for edge in page["edges"]] == emails
    assert [page["pageInfo"]["hasNextPage"] for page in pages] == [True, True, False]
    assert {page["totalCount"] for page in pages} == {5}


def test_contacts_filter_by_account_and_by_query(api: GraphQLClient) -> None:
    acme = new_account(api, name="Acme", domain="acme.com")
    new_contact(api, email="wile@acme.com", name="Wile E. Coyote")
    new_contact(api, email="road@runner.org", name="Road Runner")
    new_contact(api, email="bugs@acme.com", name="Bugs")
    new_contact(api, email="percent%@example.com", name="Under_score")

    def emails(filter: dict[str, str]) -> tuple[list[str], int]:
        found = api.ok(LIST, {"filter": filter})["contacts"]
        return [edge["node"]["email"] for edge in found["edges"]], found["totalCount"]

    assert emails({"accountId": acme["id"]}) == (["wile@acme.com", "bugs@acme.com"], 2)
    assert emails({"query": "COYOTE"}) == (["wile@acme.com"], 1)
    assert emails({"query": "runner.org"}) == (["road@runner.org"], 1)
    assert emails({"query": "acme", "accountId": acme["id"]})[1] == 2
    assert emails({"query": "%"}) == (["percent%@example.com"], 1)  # wildcards are literal
    assert emails({"query": "_"}) == (["percent%@example.com"], 1)
    assert emails({"accountId": "acc_01JD0000000000000000000000"}) == ([], 0)
    assert emails({"query": "   "})[1] == 4  # a blank query filters nothing


def test_page_sizes_outside_0_to_100_are_bad_input(api: GraphQLClient) -> None:
    for first in (-1, 101):
        answer = api(LIST, {"first": first})

        assert answer.data["contacts"] is None, first
        assert answer.error_at("contacts")["extensions"]["code"] == "BAD_USER_INPUT"
    assert api.ok(LIST, {"first": 0})["contacts"]["edges"] == []


def test_node_fetches_a_contact(api: GraphQLClient) -> None:
    contact = new_contact(api, email="node@example.com")

    found = api.ok(
        "query($id: ID!) { node(id: $id) { id ... on Contact { email } } }", {"id": contact["id"]}
    )

    assert found["node"] == {"id": contact["id"], "email": "node@example.com"}
