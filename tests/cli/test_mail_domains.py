"""`supportdesk mail-domains`: the operator sees who holds each mail domain, grants one to
another workspace (never taking mailboxes silently), and shares a public provider's."""

from __future__ import annotations

import secrets
import subprocess

from tests.cli.runner import json_of, operator_url, supportdesk
from tests.conftest import WorkspaceFixture
from tests.graphql.events.helpers import all_events
from tests.graphql.mailboxes.helpers import LIST, create_payload, new_mailbox


def mail_domains(workspace: WorkspaceFixture, *args: str) -> subprocess.CompletedProcess[str]:
    return supportdesk(
        "mail-domains", *args, database_url=operator_url(workspace.server.database_url)
    )


def _addresses(workspace: WorkspaceFixture) -> list[str]:
    edges = workspace.client().ok(LIST)["mailboxes"]["edges"]
    return [edge["node"]["address"] for edge in edges]


def test_a_domain_is_granted_only_once_other_workspaces_mailboxes_are_gone(
    workspace: WorkspaceFixture, other_workspace: WorkspaceFixture
) -> None:
    domain = f"acme-{secrets.token_hex(5)}.example"
    squatter = other_workspace.client()
    taken = new_mailbox(squatter, address=f"billing@{domain}")["mailbox"]
    below = new_mailbox(squatter, address=f"billing@mail.{domain}")["mailbox"]

    listed = json_of(mail_domains(workspace, "list", "--json"))
    refused = mail_domains(workspace, "grant", domain.upper(), "--workspace", workspace.id)
    still_theirs = create_payload(workspace.client(), address=f"support@{domain}")
    granted = json_of(
        mail_domains(
            workspace, "grant", domain, "--workspace", workspace.id, "--delete-others", "--json"
        )
    )

    assert {"domain": domain, "held_by": other_workspace.id, "granted": False} in listed
    assert refused.returncode != 0
    assert f"billing@{domain} ({taken['id']} of {other_workspace.id})" in refused.stderr
    assert f"billing@mail.{domain} ({below['id']} of {other_workspace.id})" in refused.stderr
    assert "Traceback" not in refused.stderr
    assert still_theirs["error"]["code"] == "ALREADY_EXISTS"
    assert granted == {"domain": domain, "held_by": workspace.id, "granted": True}
    assert _addresses(other_workspace) == []
    deleted = all_events(squatter, types=["mailbox.deleted"])
    assert [event["data"]["mailbox"]["id"] for event in deleted] == [taken["id"], below["id"]]
    assert deleted[0]["actor"]["type"] == "system"
    assert new_mailbox(workspace.client(), address=f"support@{domain}")["error"] is None
    assert create_payload(squatter, address=f"sales@{domain}")["error"]["code"] == "ALREADY_EXISTS"


def test_a_shared_domain_takes_addresses_of_every_workspace(
    workspace: WorkspaceFixture, other_workspace: WorkspaceFixture
) -> None:
    domain = f"mail-{secrets.token_hex(5)}.example"
    new_mailbox(workspace.client(), address=f"acme.help@{domain}")

    shared = mail_domains(workspace, "share", domain)
    new_mailbox(other_workspace.client(), address=f"beta.help@{domain}")
    bad = mail_domains(workspace, "share", "not a domain")
    below = mail_domains(workspace, "share", f"eu.{domain}")
    suffixes = [mail_domains(workspace, "share", "co.uk")] + [
        mail_domains(workspace, "grant", suffix, "--workspace", workspace.id, "--delete-others")
        for suffix in ("github.io", "co.uk")
    ]
    unknown = mail_domains(
        workspace, "grant", domain, "--workspace", "ws_01JD4Z1T8YQ0V5X2N7C3B6M9K4"
    )

    assert shared.returncode == 0, shared.stderr
    assert shared.stdout.strip() == f"{domain}  shared: one workspace per address"
    assert _addresses(other_workspace) == [f"beta.help@{domain}"]
    assert bad.returncode != 0 and "is not a mail domain" in bad.stderr
    assert below.returncode != 0
    assert f"held by the organisation's domain: {domain}, which covers eu.{domain}" in below.stderr
    for refused in suffixes:
        assert refused.returncode != 0 and "is a public suffix" in refused.stderr, refused
    assert unknown.returncode != 0 and "not found" in unknown.stderr
