"""The client's default selections ask only what the operation's own scope allows: a key
that reads issues, and nothing about people, gets an assigned issue without an error."""

from __future__ import annotations

from supportdesk_client import Client
from tests.conftest import WorkspaceFixture
from tests.graphql.members.helpers import assign


def test_an_issues_read_key_gets_an_issue_assigned_to_a_member(
    workspace: WorkspaceFixture, client: Client
) -> None:
    created = client.issues.create(
        subject="Printer on fire", body="Again.", requester_email="moss@example.com"
    )
    assign(workspace.client(), created.id, workspace.made.admin.id)

    with Client(workspace.server.base_url, workspace.create_key(["issues:read"])) as narrow:
        issue = narrow.issues.get(created.id)

    assert issue.assignee is not None
    assert issue.assignee.typename__ == "Member"
    assert issue.assignee.id == workspace.made.admin.id


def test_an_issues_read_key_reads_who_wrote_each_message(
    workspace: WorkspaceFixture, client: Client
) -> None:
    created = client.issues.create(
        subject="Printer on fire", body="Again.", requester_email="moss@example.com"
    )
    client.issues.reply(created.id, "On it.")

    with Client(workspace.server.base_url, workspace.create_key(["issues:read"])) as narrow:
        first, second = narrow.issues.messages(created.id)

    assert first.author is not None and first.author.typename__ == "Contact"
    assert second.author is not None and second.author.typename__ == "MachineUser"
    assert second.author.name
