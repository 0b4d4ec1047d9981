"""createAccount: a name, a DNS domain stored lowercase and unique, validation."""

from __future__ import annotations

from tests.client import GraphQLClient
from tests.conftest import WorkspaceFixture
from tests.graphql.accounts.helpers import create_account_payload, new_account

COUNT = "{ accounts { totalCount } }"


def test_an_account_is_created_with_its_domain_in_lowercase(api: GraphQLClient) -> None:
    account = new_account(api, name="  Acme Corporation ", domain=" Mail.ACME.co.uk ")

    assert account["id"].startswith("acc_")
    assert account["name"] == "Acme Corporation"
    assert account["domain"] == "mail.acme.co.uk"
    assert account["createdAt"] == account["updatedAt"]


def test_the_domain_is_optional(api: GraphQLClient) -> None:
    one = new_account(api, name="No domain")
    two = new_account(api, name="No domain either", domain="  ")

    assert one["domain"] is None
    assert two["domain"] is None
    assert api.ok(COUNT)["accounts"]["totalCount"] == 2


def test_a_domain_is_unique_in_a_workspace_ignoring_case(
    api: GraphQLClient, other_workspace: WorkspaceFixture
) -> None:
    new_account(api, name="Acme", domain="acme.com")

    payload = create_account_payload(api, name="Acme again", domain="ACME.COM")
    elsewhere = new_account(other_workspace.client(), name="Acme", domain="acme.com")

    assert payload["account"] is None
    assert payload["error"]["code"] == "ALREADY_EXISTS"
    assert api.ok(COUNT)["accounts"]["totalCount"] == 1
    assert elsewhere["domain"] == "acme.com"


BAD_INPUT = [
    ({}, "name", "REQUIRED"),
    ({"name": "   "}, "name", "REQUIRED"),
    ({"name": "n" * 201}, "name", "TOO_LONG"),
    ({"name": "A", "domain": "localhost"}, "domain", "INVALID"),
    ({"name": "A", "domain": "acme..com"}, "domain", "INVALID"),
    ({"name": "A", "domain": ".acme.com"}, "domain", "INVALID"),
    ({"name": "A", "domain": "acme.com."}, "domain", "INVALID"),
    ({"name": "A", "domain": "-acme.com"}, "domain", "INVALID"),
    ({"name": "A", "domain": "acme-.com"}, "domain", "INVALID"),
    ({"name": "A", "domain": "ac_me.com"}, "domain", "INVALID"),
    ({"name": "A", "domain": "acme com.org"}, "domain", "INVALID"),
    ({"name": "A", "domain": "https://acme.com"}, "domain", "INVALID"),
    ({"name": "A", "domain": "user@acme.com"}, "domain", "INVALID"),
    ({"name": "A", "domain": "ünïcode.com"}, "domain", "INVALID"),
    ({"name": "A", "domain": "a" * 64 + ".com"}, "domain", "INVALID"),
    ({"name": "A", "domain": ("a" * 60 + ".") * 5 + "com"}, "domain", "TOO_LONG"),
]


def test_bad_input_is_refused_in_the_payload(api: GraphQLClient) -> None:
    for values, field, code in BAD_INPUT:
        answer = api(
            """mutation($input: CreateAccountInput!) {
              createAccount(input: $input) { account { id } error { code fields { field code } } } }""",
            {"input": values},
        )

        assert answer.status == 200, values
        payload = answer.data["createAccount"]
        assert payload["account"] is None, values
        assert payload["error"]["code"] == "VALIDATION_FAILED", values
        assert payload["error"]["fields"] == [{"field": field, "code": code}], values
    assert api.ok(COUNT)["accounts"]["totalCount"] == 0


def test_good_domains_are_accepted(api: GraphQLClient) -> None:
    for domain in ["a.io", "x-y.example", "123.example.com", "xn--bcher-kva.example"]:
        assert new_account(api, name=domain, domain=domain)["domain"] == domain
