"""A workspace with people in it, for the tests of what keys read of people (issue #38):
an issue asked by a contact and assigned to a member, with a message by each."""

from __future__ import annotations

from dataclasses import dataclass

from supportdesk.domain import audit, issues
from tests.client import GraphQLClient
from tests.conftest import WorkspaceFixture
from tests.graphql.issues.helpers import new_issue
from tests.graphql.members.helpers import assign, new_member

# A key that reads issues and no people, and one that reads both kinds of people too.
NARROW = ["issues:read"]
WIDE = ["contacts:read", "issues:read", "members:read"]
REQUESTER = "moss@example.com"
AGENT = "roy@example.com"


@dataclass
class Desk:
    """An issue asked by a contact, assigned to a member, whose thread has a message of
    each: the contact's first message and the member's reply."""

    workspace: WorkspaceFixture
    issue_id: str
    contact_id: str
    member_id: str
    contact_message_id: str
    member_message_id: str

    def client(self, scopes: list[str]) -> GraphQLClient:
        return self.workspace.client(self.workspace.create_key(scopes))


def make_desk(workspace: WorkspaceFixture) -> Desk:
    api = workspace.client()
    issue_id = new_issue(api, requesterEmail=REQUESTER, requesterName="Maurice Moss")["id"]
    member = new_member(api, AGENT, name="Roy Trenneman")
    assert assign(api, issue_id, member["id"])["error"] is None
    # A member's reply, as the agent inbox writes it (the API replies as machine users).
    roy = audit.Actor("member", member["id"], "Roy Trenneman", None, "Roy Trenneman")
    workspace.server.call(
        issues.reply_to_issue(workspace.server.db, roy, workspace.id, issue_id, "On it")
    )
    thread = api.ok(
        """query($id: ID!) { issue(id: $id) { requester { id }
             messages { edges { node { id } } } } }""",
        {"id": issue_id},
    )["issue"]
    first, second = (edge["node"]["id"] for edge in thread["messages"]["edges"])
    return Desk(workspace, issue_id, thread["requester"]["id"], member["id"], first, second)
