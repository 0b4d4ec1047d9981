"""createContact: unique e-mails ignoring case, accounts by domain or by id, validation."""

from __future__ import annotations

from tests.client import GraphQLClient
from tests.conftest import WorkspaceFixture
from tests.graphql.accounts.helpers import new_account
from tests.graphql.contacts.helpers import create_contact_payload, new_contact

COUNT = "{ contacts { totalCount } }"


def test_a_contact_is_created_with_what_was_given(api: GraphQLClient) -> None:
    contact = new_contact(api, email="Jen.Barber@Example.com", name="  Jen Barber ")

    assert contact["id"].startswith("ct_")
    assert contact["email"] == "Jen.Barber@Example.com"  # kept as written
    assert contact["name"] == "Jen Barber"
    assert contact["account"] is None
    assert contact["createdAt"] == contact["updatedAt"]
    assert contact["createdAt"].endswith("Z")


def test_a_second_contact_with_the_same_email_in_any_case_already_exists(
    api: GraphQLClient,
) -> None:
    first = new_contact(api, email="roy@example.com", name="Roy")

    payload = create_contact_payload(api, email=" ROY@Example.COM ", name="Someone else")

    assert payload["contact"] is None
    assert payload["error"]["code"] == "ALREADY_EXISTS"
    found = api.ok('{ contactByEmail(email: "roy@example.com") { id name } }')
    assert found["contactByEmail"] == {"id": first["id"], "name": "Roy"}
    assert api.ok(COUNT)["contacts"]["totalCount"] == 1


def test_the_same_email_may_live_in_another_workspace(
    api: GraphQLClient, other_workspace: WorkspaceFixture
) -> None:
    new_contact(api, email="moss@example.com")

    other = new_contact(other_workspace.client(), email="moss@example.com")

    assert other["email"] == "moss@example.com"


def test_without_an_account_the_contact_joins_the_account_of_its_domain(
    api: GraphQLClient,
) -> None:
    acme = new_account(api, name="Acme", domain="ACME.com")
    new_account(api, name="Acme Europe", domain="eu.acme.com")

    linked = new_contact(api, email="Wile.E@Acme.COM")
    subdomain = new_contact(api, email="coyote@mail.acme.com")
    elsewhere = new_contact(api, email="road@runner.org")

    assert linked["account"] == {"id": acme["id"], "domain": "acme.com"}
    assert subdomain["account"] is None  # no subdomain matching
    assert elsewhere["account"] is None


def test_an_explicit_account_wins_over_the_domain(api: GraphQLClient) -> None:
    new_account(api, name="Acme", domain="acme.com")
    partner = new_account(api, name="Partner")

    contact = new_contact(api, email="wile@acme.com", accountId=partner["id"])

    assert contact["account"]["id"] == partner["id"]


def test_an_unknown_account_is_unknown_and_nothing_is_written(api: GraphQLClient) -> None:
    for account_id in (
        "acc_01JD0000000000000000000000",  # well-formed, of nothing
        "ct_01JD0000000000000000000000",  # well-formed, another type
        "nonsense",
    ):
        payload = create_contact_payload(api, email="new@example.com", accountId=account_id)

        assert payload["contact"] is None, account_id
        assert payload["error"]["code"] == "VALIDATION_FAILED", account_id
        assert payload["error"]["fields"] == [{"field": "accountId", "code": "UNKNOWN"}]
    assert api.ok(COUNT)["contacts"]["totalCount"] == 0


def test_an_account_of_another_workspace_is_unknown(
    api: GraphQLClient, other_workspace: WorkspaceFixture
) -> None:
    foreign = new_account(other_workspace.client(), name="Theirs")
    missing = "acc_01JD0000000000000000000000"

    theirs = create_contact_payload(api, email="a@example.com", accountId=foreign["id"])
    nobody = create_contact_payload(api, email="a@example.com", accountId=missing)

    assert theirs == nobody
    assert theirs["error"]["code"] == "VALIDATION_FAILED"


BAD_INPUT = [
    ({}, "email", "REQUIRED"),
    ({"email": "   "}, "email", "REQUIRED"),
    ({"email": "not-an-address"}, "email", "INVALID"),
    ({"email": "a@b"}, "email", "INVALID"),
    ({"email": "a" * 250 + "@example.com"}, "email", "TOO_LONG"),
    ({"email": "ok@example.com", "name": "n" * 201}, "name", "TOO_LONG"),
]


def test_bad_input_is_refused_in_the_payload(api: GraphQLClient) -> None:
    for values, field, code in BAD_INPUT:
        answer = api(
            """mutation($input: CreateContactInput!) {
              createContact(input: $input) { contact { id } error { code fields { field code } } } }""",
            {"input": values},
        )

        assert answer.status == 200, values
        payload = answer.data["createContact"]
        assert payload["contact"] is None, values
        assert payload["error"]["code"] == "VALIDATION_FAILED", values
        assert payload["error"]["fields"] == [{"field": field, "code": code}], values
    assert api.ok(COUNT)["contacts"]["totalCount"] == 0
