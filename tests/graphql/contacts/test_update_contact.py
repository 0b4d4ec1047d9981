"""updateContact: change what is given; e-mails stay unique; accounts follow the rules."""

from __future__ import annotations

from tests.client import GraphQLClient
from tests.conftest import WorkspaceFixture
from tests.graphql.accounts.helpers import new_account
from tests.graphql.contacts.helpers import (
    CONTACT,
    account_of_contact,
    new_contact,
    update_contact,
)


def test_name_and_email_change_and_updated_at_moves(api: GraphQLClient) -> None:
    contact = new_contact(api, email="jen@example.com", name="Jen")

    payload = update_contact(api, contact["id"], email="Jen.Barber@example.com", name=" J. Barber ")

    assert payload["error"] is None
    changed = payload["contact"]
    assert changed["email"] == "Jen.Barber@example.com"
    assert changed["name"] == "J. Barber"
    assert changed["createdAt"] == contact["createdAt"]
    assert changed["updatedAt"] >= contact["updatedAt"]
    found = api.ok('{ contactByEmail(email: "jen.barber@EXAMPLE.com") { id } }')
    assert found["contactByEmail"]["id"] == contact["id"]


def test_fields_not_given_stay_and_null_clears_the_name(api: GraphQLClient) -> None:
    contact = new_contact(api, email="jen@example.com", name="Jen")

    untouched = update_contact(api, contact["id"])["contact"]
    cleared = update_contact(api, contact["id"], name=None)["contact"]

    assert untouched["name"] == "Jen"
    assert untouched["updatedAt"] == contact["updatedAt"]  # nothing changed, nothing written
    assert cleared["name"] is None
    assert cleared["email"] == "jen@example.com"


def test_an_email_of_another_contact_already_exists(api: GraphQLClient) -> None:
    new_contact(api, email="roy@example.com")
    jen = new_contact(api, email="jen@example.com")

    payload = update_contact(api, jen["id"], email="ROY@example.com", name="Roy?")

    assert payload["contact"] is None
    assert payload["error"]["code"] == "ALREADY_EXISTS"
    unchanged = api.ok('{ contactByEmail(email: "jen@example.com") { name } }')
    assert unchanged["contactByEmail"]["name"] is None  # nothing of the refused change stays


def test_changing_the_case_of_ones_own_email_is_fine(api: GraphQLClient) -> None:
    jen = new_contact(api, email="jen@example.com")

    payload = update_contact(api, jen["id"], email="JEN@example.com")

    assert payload["error"] is None
    assert payload["contact"]["email"] == "JEN@example.com"


def test_an_account_can_be_set_and_removed(api: GraphQLClient) -> None:
    account = new_account(api, name="Reynholm Industries")
    contact = new_contact(api, email="douglas@example.com")

    attached = update_contact(api, contact["id"], accountId=account["id"])["contact"]
    detached = update_contact(api, contact["id"], accountId=None)["contact"]

    assert attached["account"]["id"] == account["id"]
    assert detached["account"] is None


def test_moving_to_another_domain_moves_to_that_domains_account(api: GraphQLClient) -> None:
    acme = new_account(api, name="Acme", domain="acme.com")
    partner = new_account(api, name="Partner")
    contact = new_contact(api, email="wile@example.com", accountId=partner["id"])

    same_domain = update_contact(api, contact["id"], email="Wile.E@example.com")["contact"]
    moved = update_contact(api, contact["id"], email="wile@ACME.com")["contact"]
    no_account_there = update_contact(api, contact["id"], email="wile@nowhere.org")["contact"]
    explicit = update_contact(api, contact["id"], email="w@acme.com", accountId=partner["id"])

    assert same_domain["account"]["id"] == partner["id"]
    assert moved["account"]["id"] == acme["id"]
    assert no_account_there["account"]["id"] == acme["id"]  # no account there: it stays
    assert explicit["contact"]["account"]["id"] == partner["id"]


def test_an_unknown_account_is_unknown_and_nothing_changes(
    api: GraphQLClient, other_workspace: WorkspaceFixture
) -> None:
    contact = new_contact(api, email="jen@example.com")
    foreign = new_account(other_workspace.client(), name="Theirs")

    payload = update_contact(api, contact["id"], name="Jen", accountId=foreign["id"])

    assert payload["contact"] is None
    assert payload["error"]["code"] == "VALIDATION_FAILED"
    assert payload["error"]["fields"] == [{"field": "accountId", "code": "UNKNOWN"}]
    assert account_of_contact(api, contact["id"]) is None


def test_bad_changes_are_refused_and_change_nothing(api: GraphQLClient) -> None:
    contact = new_contact(api, email="jen@example.com", name="Jen")
    for changes, field, code in [
        ({"email": ""}, "email", "REQUIRED"),
        ({"email": "nope"}, "email", "INVALID"),
        ({"email": "x" * 250 + "@example.com"}, "email", "TOO_LONG"),
        ({"name": "n" * 201}, "name", "TOO_LONG"),
        ({"name": "Changed", "email": "nope"}, "email", "INVALID"),
    ]:
        payload = update_contact(api, contact["id"], **changes)

        assert payload["error"]["code"] == "VALIDATION_FAILED", changes
        assert payload["error"]["fields"] == [{"field": field, "code": code}], changes
    unchanged = api.ok(CONTACT, {"id": contact["id"]})["contact"]
    assert (unchanged["email"], unchanged["name"]) == ("jen@example.com", "Jen")


def test_an_unknown_contact_is_not_found(api: GraphQLClient) -> None:
    for contact_id in ("ct_01JD0000000000000000000000", "acc_01JD0000000000000000000000", "x", ""):
        payload = update_contact(api, contact_id, name="Nobody")

        assert payload["contact"] is None, contact_id
        assert payload["error"]["code"] == "NOT_FOUND", contact_id
