"""A mail domain is one workspace's: the first to have a mailbox on an organisation's domain
holds it, subdomains and parent alike, until its last mailbox there goes; no other
workspace can take an unused address there, to receive its mail or to write in its name.
A shared domain (a public provider's) lets each workspace have its own addresses."""

from __future__ import annotations

import secrets

from supportdesk.domain.mailboxes import share_mail_domain
from tests.client import GraphQLClient
from tests.conftest import WorkspaceFixture
from tests.graphql.mailboxes.helpers import DELETE, UPDATE, create_payload, new_mailbox


def _domain() -> str:
    return f"desk-{secrets.token_hex(5)}.example"


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
    assert f"mail domain {domain}." in taken["error"]["message"]
    assert "mail-domains grant" in taken["error"]["message"]
    # The holder adds addresses on it as it likes.
    assert new_mailbox(api, address=f"billing@{domain}")["mailbox"]["address"]


def test_subdomains_and_parents_go_with_the_organisations_domain(
    api: GraphQLClient, other_workspace: WorkspaceFixture
) -> None:
    domain = f"acme-{secrets.token_hex(5)}.co.uk"
    new_mailbox(api, address=f"support@help.{domain}")
    theirs = other_workspace.client()

    parent = create_payload(theirs, address=f"billing@{domain}")
    sibling = create_payload(theirs, address=f"billing@mail.{domain}")
    ours = new_mailbox(api, address=f"billing@eu.mail.{domain}")
    # A public suffix is no organisation's: another's domain under it is its own.
    neighbour = new_mailbox(theirs, address=f"support@beta-{secrets.token_hex(5)}.co.uk")

    for refused in (parent, sibling):
        assert refused["error"]["code"] == "ALREADY_EXISTS"
        assert f"mail domain {domain}." in refused["error"]["message"]
    assert ours["mailbox"]["address"] == f"billing@eu.mail.{domain}"
    assert neighbour["error"] is None


def test_a_domain_is_free_again_when_its_last_mailbox_goes(
    api: GraphQLClient, other_workspace: WorkspaceFixture
) -> None:
    domain = _domain()
    first = new_mailbox(api, address=f"support@{domain}")["mailbox"]
    second = new_mailbox(api, address=f"billing@mail.{domain}")["mailbox"]
    theirs = other_workspace.client()

    api.ok(DELETE, {"id": first["id"]})
    still_held = create_payload(theirs, address=f"sales@{domain}")
    # Moving the last one elsewhere lets the domain go too.
    moved = api.ok(UPDATE, {"input": {"id": second["id"], "address": f"billing@{_domain()}"}})
    free = new_mailbox(theirs, address=f"sales@{domain}")

    assert still_held["error"]["code"] == "ALREADY_EXISTS"
    assert moved["updateMailbox"]["error"] is None
    assert free["mailbox"]["address"] == f"sales@{domain}"
    assert create_payload(api, address=f"support@{domain}")["error"]["code"] == "ALREADY_EXISTS"


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
    # Renamed on its own domain, it keeps it, and the domain stays its workspace's.
    own = mailbox["address"].replace("support@", "help@")
    renamed = theirs.ok(UPDATE, {"input": {"id": mailbox["id"], "address": own}})
    assert renamed["updateMailbox"]["mailbox"]["address"] == own
    taking = create_payload(api, address=own.replace("help@", "sales@"))
    assert taking["error"]["code"] == "ALREADY_EXISTS"


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
    # Deleting a mailbox on a shared domain leaves it shared.
    api.ok(DELETE, {"id": ours["id"]})
    assert new_mailbox(theirs, address=f"other.help@{domain}")["error"] is None
    assert new_mailbox(api, address=f"acme.desk@{domain}")["error"] is None
