"""Scopes of every contact operation and relation (CONTRACT sections 2 and 6)."""

from __future__ import annotations

from tests.conftest import WorkspaceFixture
from tests.graphql.contacts.helpers import CREATE_CONTACT, UPDATE_CONTACT, new_contact
from tests.graphql.issues.helpers import new_issue
from tests.graphql.scope_checks import check_every_scope


def test_each_contact_operation_needs_its_scope(workspace: WorkspaceFixture) -> None:
    contact_id = new_contact(workspace.client(), email="jen@example.com")["id"]
    operations = {
        "contact": ("query($id: ID!) { contact(id: $id) { id } }", lambda n: {"id": contact_id}),
        "contactByEmail": ('{ contactByEmail(email: "jen@example.com") { id } }', lambda n: None),
        "contacts": ("{ contacts { totalCount } }", lambda n: None),
        "createContact": (CREATE_CONTACT, lambda n: {"input": {"email": f"c{n}@example.com"}}),
        "updateContact": (UPDATE_CONTACT, lambda n: {"input": {"id": contact_id, "name": f"{n}"}}),
    }
    allowed_by = {
        "contact": {"contacts:read"},
        "contactByEmail": {"contacts:read"},
        "contacts": {"contacts:read"},
        "createContact": {"contacts:write"},
        "updateContact": {"contacts:write"},
    }

    check_every_scope(workspace, operations, allowed_by)


def test_a_key_without_contacts_read_sees_the_issue_but_not_its_requester(
    workspace: WorkspaceFixture,
) -> None:
    issue_id = new_issue(workspace.client())["id"]
    reader = workspace.client(workspace.create_key(["issues:read"]))

    answer = reader(
        "query($id: ID!) { issue(id: $id) { id subject status requester { id email } } }",
        {"id": issue_id},
    )
    listing = reader("{ contacts { totalCount } }")

    assert answer.data["issue"]["id"] == issue_id
    assert answer.data["issue"]["subject"] == "Printer on fire"
    assert answer.data["issue"]["status"] == "new"
    assert answer.data["issue"]["requester"] is None
    assert answer.error_at("issue", "requester")["extensions"] == {
        "code": "FORBIDDEN",
        "requiredScopes": ["contacts:read"],
    }
    assert listing.data["contacts"] is None
    assert listing.error_at("contacts")["extensions"]["code"] == "FORBIDDEN"


def test_relations_of_a_contact_need_their_own_scopes(workspace: WorkspaceFixture) -> None:
    new_issue(workspace.client(), requesterEmail="jen@example.com")
    reader = workspace.client(workspace.create_key(["contacts:read"]))

    answer = reader(
        '{ contactByEmail(email: "jen@example.com") { email account { id } issues { totalCount } } }'
    )

    contact = answer.data["contactByEmail"]
    assert contact["email"] == "jen@example.com"
    assert contact["account"] is None
    assert contact["issues"] is None
    assert answer.error_at("contactByEmail", "account")["extensions"]["requiredScopes"] == [
        "accounts:read"
    ]
    assert answer.error_at("contactByEmail", "issues")["extensions"]["requiredScopes"] == [
        "issues:read"
    ]
