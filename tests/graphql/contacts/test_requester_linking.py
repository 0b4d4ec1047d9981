"""createIssue's requester becomes a contact, linked to the account of its domain whichever
comes first, the account or the issue; e-mails and domains match in any case."""

from __future__ import annotations

from tests.client import GraphQLClient
from tests.graphql.accounts.helpers import emails_of_account, new_account, update_account
from tests.graphql.contacts.helpers import new_contact
from tests.graphql.issues.helpers import new_issue

REQUESTER = """
query($id: ID!) { issue(id: $id) { requester { id email name account { id domain } } } }
"""


def requester_of(api: GraphQLClient, issue_id: str) -> dict[str, object]:
    requester: dict[str, object] = api.ok(REQUESTER, {"id": issue_id})["issue"]["requester"]
    return requester


def test_account_first_then_issue(api: GraphQLClient) -> None:
    account = new_account(api, name="Acme", domain="Acme.COM")

    issue = new_issue(api, requesterEmail="Wile.E@ACME.com", requesterName="Wile")

    requester = requester_of(api, issue["id"])
    assert requester["email"] == "Wile.E@ACME.com"
    assert requester["account"] == {"id": account["id"], "domain": "acme.com"}


def test_issue_first_then_account_links_the_existing_contact(api: GraphQLClient) -> None:
    issue = new_issue(api, requesterEmail="Wile.E@ACME.com")
    other = new_issue(api, requesterEmail="road@runner.org")
    assert requester_of(api, issue["id"])["account"] is None

    account = new_account(api, name="Acme", domain="acme.com")

    assert requester_of(api, issue["id"])["account"] == {"id": account["id"], "domain": "acme.com"}
    assert requester_of(api, other["id"])["account"] is None
    assert emails_of_account(api, account["id"]) == ["Wile.E@ACME.com"]
    issues = api.ok(
        "query($id: ID!) { account(id: $id) { issues { totalCount edges { node { id } } } } }",
        {"id": account["id"]},
    )["account"]["issues"]
    assert issues["totalCount"] == 1
    assert issues["edges"][0]["node"]["id"] == issue["id"]


def test_issue_first_then_a_domain_set_on_an_account_links_the_contact(
    api: GraphQLClient,
) -> None:
    issue = new_issue(api, requesterEmail="moss@Reynholm.co.uk")
    account = new_account(api, name="Reynholm Industries")

    update_account(api, account["id"], domain="REYNHOLM.CO.UK")

    assert requester_of(api, issue["id"])["account"] == {
        "id": account["id"],
        "domain": "reynholm.co.uk",
    }


def test_the_requester_and_a_created_contact_are_the_same_person(api: GraphQLClient) -> None:
    contact = new_contact(api, email="Jen@Example.com", name="Jen")

    issue = new_issue(api, requesterEmail="JEN@example.COM", requesterName="Jennifer")

    requester = requester_of(api, issue["id"])
    assert requester["id"] == contact["id"]
    assert requester["name"] == "Jen"  # an existing name is never overwritten by an issue
    assert api.ok("{ contacts { totalCount } }")["contacts"]["totalCount"] == 1
