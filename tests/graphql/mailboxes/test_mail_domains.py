"""A mail domain is one workspace's: the first to have a mailbox on it holds it, and no
other workspace can take an unused address there, to receive its mail or to write in its
name. A shared domain (a public provider's) lets each workspace have its own addresses."""

from __future__ import annotations

import secrets

from supportdesk.domain.mailboxes import grant_mail_domain, share_mail_domain
from tests.client import GraphQLClient
from tests.conftest import WorkspaceFixture
from tests.graphql.mailboxes.helpers import UPDATE, create_payload, new_mailbox


def _domain() -> str:
    return f"desk-{secrets.token_hex(5)}.example.com"


def test_another_workspace_cannot_take_an_address_on_a_held_domain(
    api: GraphQLClient, other_workspace: WorkspaceFixture
) -> None:
    domain = _domain()
    new_mailbox(api, address=f"support@{domain}")
    theirs = other_workspace.client()

    taken = create_payload(theirs, address=f"Billing@{domain.upper()}")

    assert taken["mailbox"] is None and taken["inboundToken"] is None
    assert taken["error"]["code"] == "ALREADY_EXISTS"
    assert taken["error"]["fields"] == [{"field": "address", "code": "INVALID"}]
    assert domain in taken["error"]["message"]
    assert "mail-domains grant" in taken["error"]["message"]
    # The holder adds addresses on it as it likes.
    assert new_mailbox(api, address=f"billing@{domain}")["mailbox"]["address"]


def test_a_held_domains_subdomains_are_its_holders(
    api: GraphQLClient, workspace: WorkspaceFixture, other_workspace: WorkspaceFixture
) -> None:
    domain = _domain()
    new_mailbox(api, address=f"support@{domain}")
    theirs = other_workspace.client()

    below = create_payload(theirs, address=f"billing@mail.{domain}")
    ours_below = new_mailbox(api, address=f"billing@eu.mail.{domain}")
    # A subdomain the operator gave to another workspace is that workspace's.
    workspace.server.call(
        grant_mail_domain(workspace.server.db, f"help.{domain}", other_workspace.id)
    )
    granted_below = new_mailbox(theirs, address=f"desk@help.{domain}")

    assert below["error"]["code"] == "ALREADY_EXISTS"
    assert f"mailboxes on {domain}." in below["error"]["message"]
    assert ours_below["mailbox"]["address"] == f"billing@eu.mail.{domain}"
    assert granted_below["mailbox"]["address"] == f"desk@help.{domain}"


def test_a_mailbox_cannot_move_onto_another_workspaces_domain(
    api: GraphQLClient, other_workspace: WorkspaceFixture
) -> None:
    domain = _domain()
    new_mailbox(api, address=f"support@{domain}")
    theirs = other_workspace.client()
    mailbox = new_mailbox(theirs)["mailbox"]

    moved = theirs.ok(UPDATE, {"input": {"id": mailbox["id"], "address": f"sales@{domain}"}})

    assert moved["updateMailbox"]["mailbox"] is None
    assert moved["updateMailbox"]["error"]["code"] == "ALREADY_EXISTS"
    # Renamed on its own domain, it keeps it.
    own = mailbox["address"].replace("support@", "help@")
    renamed = theirs.ok(UPDATE, {"input": {"id": mailbox["id"], "address": own}})
    assert renamed["updateMailbox"]["mailbox"]["address"] == own


def test_on_a_shared_domain_each_workspace_has_its_own_addresses(
    api: GraphQLClient, workspace: WorkspaceFixture, other_workspace: WorkspaceFixture
) -> None:
    domain = _domain()
    workspace.server.call(share_mail_domain(workspace.server.db, domain))
    theirs = other_workspace.client()

    ours = new_mailbox(api, address=f"acme.help@{domain}")["mailbox"]
    their_own = new_mailbox(theirs, address=f"beta.help@{domain}")["mailbox"]
    same = create_payload(theirs, address=ours["address"])

    assert (ours["address"], their_own["address"]) == (
        f"acme.help@{domain}",
        f"beta.help@{domain}",
    )
    assert same["error"]["code"] == "ALREADY_EXISTS"
    assert "belongs to a mailbox already" in same["error"]["message"]
