"""Contacts of another workspace answer exactly like contacts that do not exist."""

from __future__ import annotations

from tests.conftest import WorkspaceFixture
from tests.graphql.accounts.helpers import new_account
from tests.graphql.contacts.helpers import new_contact
from tests.graphql.issues.helpers import new_issue

MISSING = "ct_01JD0000000000000000000000"
MISSING_ACCOUNT = "acc_01JD0000000000000000000000"
BY_ID = {
    "contact": "query($id: ID!) { contact(id: $id) { id email } }",
    "node": "query($id: ID!) { node(id: $id) { id } }",
    "updateContact": """mutation($id: ID!) { updateContact(input: {id: $id, name: "Mine now"}) {
        contact { id } error { code message fields { field code } } } }""",
}


def test_another_workspaces_contact_is_not_there(
    workspace: WorkspaceFixture, other_workspace: WorkspaceFixture
) -> None:
    theirs = other_workspace.client()
    account = new_account(theirs, name="Theirs", domain="theirs.com")
    foreign = new_contact(theirs, email="secret@theirs.com", name="Secret")
    new_issue(theirs, requesterEmail="secret@theirs.com")
    mine = workspace.client()
    new_contact(mine, email="me@example.com")

    for name, query in BY_ID.items():
        assert mine(query, {"id": foreign["id"]}).body == mine(query, {"id": MISSING}).body, name
    by_email = mine('{ contactByEmail(email: "secret@theirs.com") { id } }')
    assert by_email.data["contactByEmail"] is None
    assert by_email.codes == ["NOT_FOUND"]
    listing = mine(
        "query($f: ContactFilter) { contacts(filter: $f) { totalCount edges { node { email } } } }",
        {"f": {"query": "theirs"}},
    )
    assert listing.data["contacts"] == {"totalCount": 0, "edges": []}
    of_account = mine(
        "query($f: ContactFilter) { contacts(filter: $f) { totalCount } }",
        {"f": {"accountId": account["id"]}},
    )
    assert of_account.data["contacts"]["totalCount"] == 0
    assert (
        theirs.ok("query($id: ID!) { contact(id: $id) { name } }", {"id": foreign["id"]})[
            "contact"
        ]["name"]
        == "Secret"
    )  # the refused update changed nothing


def test_a_contact_cannot_join_another_workspaces_account(
    workspace: WorkspaceFixture, other_workspace: WorkspaceFixture
) -> None:
    foreign = new_account(other_workspace.client(), name="Theirs", domain="theirs.com")
    mine = workspace.client()

    linked_by_domain = new_contact(mine, email="someone@theirs.com")
    query = """mutation($id: ID!, $account: ID) { updateContact(input: {id: $id, accountId: $account}) {
        contact { id } error { code message fields { field code } } } }"""
    foreign_answer = mine(query, {"id": linked_by_domain["id"], "account": foreign["id"]})
    missing_answer = mine(query, {"id": linked_by_domain["id"], "account": MISSING_ACCOUNT})

    assert linked_by_domain["account"] is None  # domains match only within a workspace
    assert foreign_answer.body == missing_answer.body
    assert foreign_answer.data["updateContact"]["error"]["code"] == "VALIDATION_FAILED"
