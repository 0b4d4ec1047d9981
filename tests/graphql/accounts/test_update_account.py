"""updateAccount: rename, set, change or clear the domain; contacts follow new domains and
stay with the account when its domain changes (the documented choice)."""

from __future__ import annotations

from tests.client import GraphQLClient
from tests.graphql.accounts.helpers import (
    create_account_payload,
    emails_of_account,
    new_account,
    update_account,
)
from tests.graphql.contacts.helpers import account_of_contact, new_contact


def test_a_rename_keeps_the_domain(api: GraphQLClient) -> None:
    account = new_account(api, name="Acme", domain="acme.com")

    payload = update_account(api, account["id"], name="  ACME Inc. ")

    assert payload["error"] is None
    assert payload["account"]["name"] == "ACME Inc."
    assert payload["account"]["domain"] == "acme.com"
    assert payload["account"]["updatedAt"] >= account["updatedAt"]


def test_nothing_given_changes_nothing(api: GraphQLClient) -> None:
    account = new_account(api, name="Acme", domain="acme.com")

    payload = update_account(api, account["id"], name="Acme", domain="ACME.com")

    assert payload["account"] == account


def test_a_new_domain_brings_its_unattached_contacts(api: GraphQLClient) -> None:
    account = new_account(api, name="Acme")
    partner = new_account(api, name="Partner")
    loose = new_contact(api, email="Wile@ACME.com")
    chosen = new_contact(api, email="bugs@acme.com", accountId=partner["id"])
    new_contact(api, email="road@runner.org")

    payload = update_account(api, account["id"], domain="Acme.Com")

    assert payload["account"]["domain"] == "acme.com"
    assert emails_of_account(api, account["id"]) == ["Wile@ACME.com"]
    assert account_of_contact(api, loose["id"]) == account["id"]
    assert account_of_contact(api, chosen["id"]) == partner["id"]  # a choice is kept


def test_a_changed_domain_keeps_old_contacts_and_brings_new_ones(api: GraphQLClient) -> None:
    account = new_account(api, name="Acme", domain="acme.com")
    old = new_contact(api, email="wile@acme.com")
    new = new_contact(api, email="wile@acme.io")

    update_account(api, account["id"], domain="acme.io")

    assert emails_of_account(api, account["id"]) == ["wile@acme.com", "wile@acme.io"]
    later = new_contact(api, email="later@acme.com")
    assert later["account"] is None  # the old domain links no one any more
    assert account_of_contact(api, old["id"]) == account["id"]
    assert account_of_contact(api, new["id"]) == account["id"]


def test_clearing_the_domain_keeps_the_contacts(api: GraphQLClient) -> None:
    account = new_account(api, name="Acme", domain="acme.com")
    new_contact(api, email="wile@acme.com")

    payload = update_account(api, account["id"], domain=None)

    assert payload["account"]["domain"] is None
    assert emails_of_account(api, account["id"]) == ["wile@acme.com"]
    assert new_contact(api, email="bugs@acme.com")["account"] is None
    freed = create_account_payload(api, name="Acme 2", domain="acme.com")
    assert freed["error"] is None  # the domain is free again


def test_a_domain_of_another_account_already_exists(api: GraphQLClient) -> None:
    new_account(api, name="Acme", domain="acme.com")
    other = new_account(api, name="Other", domain="other.com")
    new_contact(api, email="x@acme.com")

    payload = update_account(api, other["id"], domain="ACME.com", name="Renamed")

    assert payload["account"] is None
    assert payload["error"]["code"] == "ALREADY_EXISTS"
    unchanged = api.ok("query($id: ID!) { account(id: $id) { name domain } }", {"id": other["id"]})
    assert unchanged["account"] == {"name": "Other", "domain": "other.com"}


def test_bad_changes_are_refused(api: GraphQLClient) -> None:
    account = new_account(api, name="Acme", domain="acme.com")
    for changes, field, code in [
        ({"name": ""}, "name", "REQUIRED"),
        ({"name": "n" * 201}, "name", "TOO_LONG"),
        ({"domain": "not a domain"}, "domain", "INVALID"),
        ({"domain": "x" * 250 + ".com"}, "domain", "TOO_LONG"),
    ]:
        payload = update_account(api, account["id"], **changes)

        assert payload["error"]["code"] == "VALIDATION_FAILED", changes
        assert payload["error"]["fields"] == [{"field": field, "code": code}], changes


def test_an_unknown_account_is_not_found(api: GraphQLClient) -> None:
    for account_id in ("acc_01JD0000000000000000000000", "ct_01JD0000000000000000000000", "x"):
        payload = update_account(api, account_id, name="Nobody")

        assert payload["account"] is None, account_id
        assert payload["error"]["code"] == "NOT_FOUND", account_id
