"""Mailboxes: the inbound token shown once, addresses unique across workspaces, the IMAP
password sealed and never shown, the admin scope, events and audit without secrets."""

from __future__ import annotations

import json

from sqlalchemy import select

from supportdesk.auth.keys import hash_secret
from supportdesk.db.tables import mailboxes
from tests.client import GraphQLClient
from tests.conftest import WorkspaceFixture
from tests.graphql.events.helpers import all_events
from tests.graphql.mailboxes.helpers import (
    DELETE,
    LIST,
    ROTATE,
    UPDATE,
    create_payload,
    new_mailbox,
    unique_address,
)


def _stored(workspace: WorkspaceFixture, mailbox_id: str) -> dict[str, object]:
    async def read() -> dict[str, object]:
        async with workspace.server.db.read() as connection:
            row = (
                await connection.execute(
                    select(mailboxes).where(
                        mailboxes.c.workspace_id == workspace.id, mailboxes.c.id == mailbox_id
                    )
                )
            ).one()
        return dict(row._mapping)

    return workspace.server.call(read())


def test_a_mailbox_is_made_with_an_inbound_token_shown_once(
    api: GraphQLClient, workspace: WorkspaceFixture
) -> None:
    address = unique_address()
    made = new_mailbox(api, address=address.upper(), name="Support", acknowledge=True)

    mailbox, token = made["mailbox"], made["inboundToken"]
    assert mailbox["id"].startswith("mbx_")
    assert mailbox["address"] == address
    assert (mailbox["name"], mailbox["acknowledge"], mailbox["imapUrl"]) == ("Support", True, None)
    assert token.startswith("mbt_") and mailbox["tokenPrefix"] == token[:12]
    listed = api.ok(LIST)["mailboxes"]
    assert [edge["node"] for edge in listed["edges"]] == [mailbox]
    stored = _stored(workspace, mailbox["id"])
    assert stored["token_hash"] == hash_secret(token)
    assert token not in json.dumps(stored, default=str)


def test_an_address_belongs_to_one_workspace(
    api: GraphQLClient, other_workspace: WorkspaceFixture
) -> None:
    address = unique_address()
    new_mailbox(api, address=address)

    again = create_payload(api, address=address)
    elsewhere = create_payload(other_workspace.client(), address=address.upper())

    for payload in (again, elsewhere):
        assert payload["mailbox"] is None and payload["inboundToken"] is None
        assert payload["error"]["code"] == "ALREADY_EXISTS"


def test_bad_addresses_and_imap_urls_are_refused(api: GraphQLClient) -> None:
    for values, field in (
        ({"address": "not an address"}, "address"),
        ({"address": "support+x@example.com"}, "address"),
        ({"address": "zoë@example.com"}, "address"),
        ({"address": "help,desk@example.com"}, "address"),
        ({"address": unique_address(), "imapUrl": "http://user:pw@host/INBOX"}, "imapUrl"),
        ({"address": unique_address(), "imapUrl": "imaps://host/INBOX"}, "imapUrl"),
    ):
        payload = create_payload(api, **values)
        assert payload["error"]["code"] == "VALIDATION_FAILED", values
        assert payload["error"]["fields"] == [{"field": field, "code": "INVALID"}]


def test_the_imap_password_is_sealed_and_never_shown(
    api: GraphQLClient, workspace: WorkspaceFixture
) -> None:
    url = "imaps://help%40acme.test:s3cret-PASS@imap.example.com:993/INBOX"
    mailbox = new_mailbox(api, imapUrl=url)["mailbox"]

    assert mailbox["imapUrl"] == "imaps://help%40acme.test:***@imap.example.com:993/INBOX"
    stored = _stored(workspace, mailbox["id"])
    assert "s3cret-PASS" not in json.dumps(stored, default=str)
    events = json.dumps(all_events(api, types=["mailbox.created"]))
    audit = json.dumps(api.ok("{ auditEvents(first: 20) { edges { node { action data } } } }"))
    assert "s3cret-PASS" not in events + audit


def test_update_rotate_and_delete(api: GraphQLClient) -> None:
    made = new_mailbox(api)
    mailbox_id, first_token = made["mailbox"]["id"], made["inboundToken"]

    changed = api.ok(UPDATE, {"input": {"id": mailbox_id, "name": "Billing", "acknowledge": True}})[
        "updateMailbox"
    ]
    rotated = api.ok(ROTATE, {"id": mailbox_id})["rotateMailboxToken"]
    deleted = api.ok(DELETE, {"id": mailbox_id})["deleteMailbox"]

    assert changed["error"] is None
    assert (changed["mailbox"]["name"], changed["mailbox"]["acknowledge"]) == ("Billing", True)
    assert rotated["inboundToken"].startswith("mbt_") and rotated["inboundToken"] != first_token
    assert rotated["mailbox"]["tokenPrefix"] == rotated["inboundToken"][:12]
    assert deleted["mailbox"]["id"] == mailbox_id
    assert api.ok(LIST)["mailboxes"]["totalCount"] == 0
    kinds = [event["type"] for event in all_events(api) if event["type"].startswith("mailbox.")]
    assert kinds == ["mailbox.created", "mailbox.updated", "mailbox.updated", "mailbox.deleted"]
    gone = api.ok(DELETE, {"id": mailbox_id})["deleteMailbox"]
    assert gone["error"]["code"] == "NOT_FOUND"


def test_mailboxes_need_the_admin_scope(workspace: WorkspaceFixture) -> None:
    key = workspace.create_key(["issues:read", "issues:write", "thread:reply"])
    api = workspace.client(key)

    answer = api(LIST)

    assert answer.codes == ["FORBIDDEN"]
    assert answer.errors[0]["extensions"]["requiredScopes"] == ["mailboxes:manage"]
