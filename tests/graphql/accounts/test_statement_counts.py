"""Nested lists (account → contacts → issues) cost a constant number of SQL statements."""

from __future__ import annotations

from tests.client import GraphQLClient
from tests.conftest import WorkspaceFixture
from tests.graphql.accounts.helpers import new_account
from tests.graphql.issues.helpers import new_issue

NESTED = """
query($accounts: Int!, $contacts: Int!, $issues: Int!) {
  accounts(first: $accounts) {
    totalCount
    edges { node { name
      issues(first: $issues) { totalCount edges { node { subject } } }
      contacts(first: $contacts) { totalCount edges { node { email account { name }
        issues(first: $issues) { totalCount edges { node { subject requester { email } } } }
      } } }
    } }
  }
}
"""
ONE_CONTACT = """
query($email: String!, $issues: Int!) {
  contactByEmail(email: $email) { email account { domain }
    issues(first: $issues) { totalCount edges { node { subject messages(first: 5) { totalCount } } } }
  }
}
"""


def statements_for(
    workspace: WorkspaceFixture, api: GraphQLClient, query: str, variables: dict[str, object]
) -> int:
    counter = workspace.server.statements
    api.ok(query, variables)  # warm: the last-used write of the key happens once a minute
    counter.reset()
    api.ok(query, variables)
    return counter.count


def test_accounts_with_contacts_with_issues_cost_the_same_for_few_or_many(
    workspace: WorkspaceFixture,
) -> None:
    api = workspace.client()
    for account_index in range(6):
        domain = f"company{account_index}.example"
        new_account(api, name=f"Company {account_index}", domain=domain)
        for contact_index in range(4):
            for issue_index in range(2):
                new_issue(
                    api,
                    subject=f"Issue {issue_index}",
                    requesterEmail=f"person{contact_index}@{domain}",
                )

    small = statements_for(workspace, api, NESTED, {"accounts": 1, "contacts": 1, "issues": 1})
    large = statements_for(workspace, api, NESTED, {"accounts": 6, "contacts": 4, "issues": 2})

    assert small == large, (small, large)
    # key lookup, accounts, their count, contacts of accounts, their counts, issues of
    # accounts, their counts, issues of contacts, their counts, accounts of contacts,
    # requesters of issues
    assert large <= 11, large


def test_one_contact_with_its_issues_costs_the_same_for_1_or_many(
    workspace: WorkspaceFixture,
) -> None:
    api = workspace.client()
    new_account(api, name="Acme", domain="acme.com")
    for index in range(8):
        new_issue(api, subject=f"Issue {index}", requesterEmail="wile@acme.com")

    one = statements_for(workspace, api, ONE_CONTACT, {"email": "wile@acme.com", "issues": 1})
    many = statements_for(workspace, api, ONE_CONTACT, {"email": "wile@acme.com", "issues": 8})

    assert one == many, (one, many)
    assert many <= 6  # key lookup, the contact, its account, its issues, their count, messages
