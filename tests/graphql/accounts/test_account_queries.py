"""account, accounts, node: reading accounts with their contacts and issues."""

from __future__ import annotations

from tests.client import GraphQLClient
from tests.graphql.accounts.helpers import new_account
from tests.graphql.contacts.helpers import new_contact
from tests.graphql.issues.helpers import new_issue

FULL = """
query($id: ID!, $first: Int, $after: String, $issuesAfter: String) {
  account(id: $id) {
    id name domain createdAt updatedAt
    contacts(first: $first, after: $after) {
      totalCount edges { cursor node { email account { id } } } pageInfo { hasNextPage endCursor }
    }
    issues(first: $first, after: $issuesAfter) {
      totalCount edges { cursor node { subject } } pageInfo { hasNextPage endCursor }
    }
  }
}
"""
LIST = """
query($first: Int, $after: String, $filter: AccountFilter) {
  accounts(first: $first, after: $after, filter: $filter) {
    totalCount edges { cursor node { name domain } } pageInfo { hasNextPage endCursor }
  }
}
"""


def test_an_account_shows_its_contacts_and_their_issues(api: GraphQLClient) -> None:
    account = new_account(api, name="Acme", domain="acme.com")
    for index in range(3):
        new_contact(api, email=f"person{index}@acme.com")
    new_issue(api, subject="First", requesterEmail="person2@acme.com")
    new_issue(api, subject="Second", requesterEmail="newcomer@ACME.com")
    new_issue(api, subject="Elsewhere", requesterEmail="road@runner.org")

    found = api.ok(FULL, {"id": account["id"], "first": 3})["account"]

    assert found["name"] == "Acme"
    assert found["domain"] == "acme.com"
    contacts = found["contacts"]
    assert contacts["totalCount"] == 4
    assert [edge["node"]["email"] for edge in contacts["edges"]] == [
        "person0@acme.com",
        "person1@acme.com",
        "person2@acme.com",
    ]
    assert {edge["node"]["account"]["id"] for edge in contacts["edges"]} == {account["id"]}
    assert contacts["pageInfo"]["hasNextPage"] is True
    assert found["issues"]["totalCount"] == 2
    assert [edge["node"]["subject"] for edge in found["issues"]["edges"]] == ["First", "Second"]
    assert found["issues"]["pageInfo"]["hasNextPage"] is False

    rest = api.ok(
        FULL, {"id": account["id"], "first": 3, "after": contacts["pageInfo"]["endCursor"]}
    )["account"]["contacts"]
    assert [edge["node"]["email"] for edge in rest["edges"]] == ["newcomer@ACME.com"]
    assert rest["pageInfo"]["hasNextPage"] is False


def test_an_empty_account(api: GraphQLClient) -> None:
    account = new_account(api, name="Empty")

    found = api.ok(FULL, {"id": account["id"]})["account"]

    assert found["domain"] is None
    assert found["contacts"]["totalCount"] == 0
    assert found["contacts"]["edges"] == []
    assert found["issues"]["totalCount"] == 0


def test_an_unknown_id_answers_null_with_not_found(api: GraphQLClient) -> None:
    for account_id in (
        "acc_01JD0000000000000000000000",
        "art_01JD0000000000000000000000",
        "not-an-id",
        "",
    ):
        answer = api("query($id: ID!) { account(id: $id) { id } apiInfo }", {"id": account_id})

        assert answer.status == 200, account_id
        assert answer.data["account"] is None, account_id
        assert answer.data["apiInfo"] is not None
        assert answer.error_at("account")["extensions"]["code"] == "NOT_FOUND"


def test_accounts_page_and_filter(api: GraphQLClient) -> None:
    new_account(api, name="Acme", domain="acme.com")
    new_account(api, name="Reynholm Industries", domain="reynholm.co.uk")
    new_account(api, name="Initech")
    new_account(api, name="100% Cotton", domain="cotton.example")

    def names(**variables: object) -> tuple[list[str], int, bool]:
        found = api.ok(LIST, variables)["accounts"]
        return (
            [edge["node"]["name"] for edge in found["edges"]],
            found["totalCount"],
            found["pageInfo"]["hasNextPage"],
        )

    first_page = api.ok(LIST, {"first": 3})["accounts"]
    assert names(first=3) == (["Acme", "Reynholm Industries", "Initech"], 4, True)
    assert names(first=3, after=first_page["pageInfo"]["endCursor"]) == (["100% Cotton"], 4, False)
    assert names(filter={"domain": "REYNHOLM.co.uk"}) == (["Reynholm Industries"], 1, False)
    assert names(filter={"domain": "co.uk"}) == ([], 0, False)  # domain is exact
    assert names(filter={"query": "INDUS"}) == (["Reynholm Industries"], 1, False)
    assert names(filter={"query": "CO.UK"}) == (["Reynholm Industries"], 1, False)  # the domain
    assert names(filter={"query": "co"}) == (
        ["Acme", "Reynholm Industries", "100% Cotton"],
        3,
        False,
    )
    assert names(filter={"query": "%"}) == (["100% Cotton"], 1, False)


def test_a_bad_cursor_is_bad_input(api: GraphQLClient) -> None:
    answer = api(LIST, {"after": "definitely not a cursor"})

    assert answer.data["accounts"] is None
    assert answer.error_at("accounts")["extensions"]["code"] == "BAD_USER_INPUT"


def test_node_fetches_an_account(api: GraphQLClient) -> None:
    account = new_account(api, name="Acme", domain="acme.com")

    found = api.ok(
        "query($id: ID!) { node(id: $id) { id ... on Account { name domain } } }",
        {"id": account["id"]},
    )

    assert found["node"] == {"id": account["id"], "name": "Acme", "domain": "acme.com"}
