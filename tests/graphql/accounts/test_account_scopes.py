"""Scopes of every account operation and relation (CONTRACT sections 2 and 6)."""

from __future__ import annotations

from tests.conftest import WorkspaceFixture
from tests.graphql.accounts.helpers import CREATE_ACCOUNT, UPDATE_ACCOUNT, new_account
from tests.graphql.contacts.helpers import new_contact
from tests.graphql.scope_checks import check_every_scope


def test_each_account_operation_needs_its_scope(workspace: WorkspaceFixture) -> None:
    account_id = new_account(workspace.client(), name="Acme")["id"]
    operations = {
        "account": ("query($id: ID!) { account(id: $id) { id } }", lambda n: {"id": account_id}),
        "accounts": ("{ accounts { totalCount } }", lambda n: None),
        "createAccount": (CREATE_ACCOUNT, lambda n: {"input": {"name": f"Account {n}"}}),
        "updateAccount": (UPDATE_ACCOUNT, lambda n: {"input": {"id": account_id, "name": f"{n}"}}),
    }
    allowed_by = {
        "account": {"accounts:read"},
        "accounts": {"accounts:read"},
        "createAccount": {"accounts:write"},
        "updateAccount": {"accounts:write"},
    }

    check_every_scope(workspace, operations, allowed_by)


def test_relations_of_an_account_need_their_own_scopes(workspace: WorkspaceFixture) -> None:
    api = workspace.client()
    account = new_account(api, name="Acme", domain="acme.com")
    new_contact(api, email="wile@acme.com")
    reader = workspace.client(workspace.create_key(["accounts:read"]))
    contact_reader = workspace.client(workspace.create_key(["contacts:read"]))

    answer = reader(
        "query($id: ID!) { account(id: $id) { name contacts { totalCount } issues { totalCount } } }",
        {"id": account["id"]},
    )
    via_contact = contact_reader(
        '{ contactByEmail(email: "wile@acme.com") { email account { name } } }'
    )

    assert answer.data["account"] == {"name": "Acme", "contacts": None, "issues": None}
    assert answer.error_at("account", "contacts")["extensions"]["requiredScopes"] == [
        "contacts:read"
    ]
    assert answer.error_at("account", "issues")["extensions"]["requiredScopes"] == ["issues:read"]
    assert via_contact.data["contactByEmail"] == {"email": "wile@acme.com", "account": None}
    assert via_contact.error_at("contactByEmail", "account")["extensions"]["code"] == "FORBIDDEN"
