"""Accounts of another workspace answer exactly like accounts that do not exist."""

from __future__ import annotations

from tests.conftest import WorkspaceFixture
from tests.graphql.accounts.helpers import new_account
from tests.graphql.contacts.helpers import new_contact

MISSING = "acc_01JD0000000000000000000000"
BY_ID = {
    "account": "query($id: ID!) { account(id: $id) { id name } }",
    "node": "query($id: ID!) { node(id: $id) { id } }",
    "updateAccount": """mutation($id: ID!) { updateAccount(input: {id: $id, name: "Mine now"}) {
        account { id } error { code message fields { field code } } } }""",
}


def test_another_workspaces_account_is_not_there(
    workspace: WorkspaceFixture, other_workspace: WorkspaceFixture
) -> None:
    theirs = other_workspace.client()
    foreign = new_account(theirs, name="Theirs", domain="theirs.com")
    new_contact(theirs, email="secret@theirs.com")
    mine = workspace.client()
    new_account(mine, name="Mine", domain="mine.com")

    for name, query in BY_ID.items():
        assert mine(query, {"id": foreign["id"]}).body == mine(query, {"id": MISSING}).body, name
    listing = mine(
        "query($f: AccountFilter) { accounts(filter: $f) { totalCount edges { node { name } } } }",
        {"f": {"domain": "theirs.com"}},
    )
    assert listing.data["accounts"] == {"totalCount": 0, "edges": []}
    assert mine.ok("{ accounts { totalCount } }")["accounts"]["totalCount"] == 1
    assert (
        theirs.ok("query($id: ID!) { account(id: $id) { name } }", {"id": foreign["id"]})[
            "account"
        ]["name"]
        == "Theirs"
    )


def test_domains_and_links_stay_inside_a_workspace(
    workspace: WorkspaceFixture, other_workspace: WorkspaceFixture
) -> None:
    theirs = other_workspace.client()
    their_contact = new_contact(theirs, email="someone@shared.com")
    mine = workspace.client()

    account = new_account(mine, name="Shared", domain="shared.com")  # same domain: allowed

    assert account["domain"] == "shared.com"
    assert (
        theirs.ok(
            "query($id: ID!) { contact(id: $id) { account { id } } }", {"id": their_contact["id"]}
        )["contact"]["account"]
        is None
    )
    contacts = mine.ok(
        "query($id: ID!) { account(id: $id) { contacts { totalCount } } }", {"id": account["id"]}
    )
    assert contacts["account"]["contacts"]["totalCount"] == 0
