"""The writers of mailboxes: create, update, rotate the inbound token, delete. Each is one
transaction that records its audit entry and `mailbox.*` event.

The inbound token is made here, returned once and stored as its SHA-256. An IMAP URL's
password must be read back to log in, so the URL is sealed by the `SecretBox` the caller
passes (None: no server key to seal with, NOT_CONFIGURED), as webhook secrets are."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete, insert

from supportdesk.auth import inbound_tokens
from supportdesk.auth.secret_box import SecretBox
from supportdesk.db import Database
from supportdesk.db.connection import Connection
from supportdesk.db.locking import locked_row
from supportdesk.db.tables import email_outbox, inbound_emails, mailboxes
from supportdesk.domain import audit
from supportdesk.domain.audit import Actor
from supportdesk.domain.changes import KEEP, Keep
from supportdesk.domain.clock import now
from supportdesk.domain.errors import DomainError, ErrorCode, FieldCode, not_found
from supportdesk.domain.events import record_events, snapshots
from supportdesk.domain.ids import is_id_of, new_id
from supportdesk.domain.mailboxes.domains import claim_address, move_address, release_address
from supportdesk.domain.mailboxes.imap_url import MAX_URL, parsed_imap_url, shown_imap_url
from supportdesk.domain.mailboxes.models import MAILBOX_COLUMNS, Mailbox, mailbox_of
from supportdesk.domain.rows import updated_row
from supportdesk.domain.validation import Validator

MAX_NAME = 200

NOT_CONFIGURED = DomainError(
    ErrorCode.NOT_CONFIGURED,
    "An IMAP URL's password is sealed under the server key, and none is configured: set"
    " SUPPORTDESK_SECRET_KEY (the same value in every process; `supportdesk secret-key`"
    " prints a new one).",
)


@dataclass(frozen=True, slots=True)
class MailboxWithToken:
    mailbox: Mailbox
    inbound_token: str


@dataclass(frozen=True, slots=True)
class _ImapUrl:
    shown: str | None
    sealed: str | None


def _address(check: Validator, value: str | None) -> str | None:
    address = check.email("address", value, required=True)
    if address is None or check.errors:
        return None
    if "+" in address.split("@", 1)[0]:
        # Plus forms of the address route to it (support+anything@): its own can have none.
        check.fail("address", FieldCode.INVALID, "A mailbox's address has no `+` part.")
    elif not address.isascii():
        # Mail is sent from it without SMTPUTF8, which few relays offer.
        check.fail("address", FieldCode.INVALID, "A mailbox's address is plain ASCII.")
    return address.lower()


def _imap_url(check: Validator, value: str | None, box: SecretBox | None) -> _ImapUrl:
    url = check.text("imapUrl", value, MAX_URL, required=False)
    if url is None:
        return _ImapUrl(None, None)
    parts = parsed_imap_url(url)
    if parts is None:
        check.fail(
            "imapUrl", FieldCode.INVALID, "An IMAP URL reads imaps://user:password@host/INBOX."
        )
        return _ImapUrl(None, None)
    if box is None:
        raise NOT_CONFIGURED
    return _ImapUrl(shown_imap_url(parts), box.seal(url))


async def create_mailbox(
    db: Database,
    actor: Actor,
    workspace_id: str,
    box: SecretBox | None,
    *,
    address: str | None,
    name: str | None = None,
    acknowledge: bool | None = None,
    imap_url: str | None = None,
) -> MailboxWithToken:
    """A new mailbox and its inbound token (returned here, once)."""
    check = Validator()
    clean_address = _address(check, address)
    clean_name = check.text("name", name, MAX_NAME, required=False) or ""
    imap = _imap_url(check, imap_url, box)
    check.check()
    assert clean_address is not None
    token = inbound_tokens.new_inbound_token()
    moment = now()
    mailbox = Mailbox(
        new_id("Mailbox", moment),
        workspace_id,
        clean_address,
        clean_name,
        bool(acknowledge),
        imap.shown,
        token[: inbound_tokens.TOKEN_PREFIX_LENGTH],
        moment,
        moment,
    )
    async with db.transaction() as connection:
        await claim_address(connection, workspace_id, clean_address, None)
        await connection.execute(
            insert(mailboxes).values(
                workspace_id=workspace_id,
                id=mailbox.id,
                address=mailbox.address,
                name=mailbox.name,
                acknowledge=mailbox.acknowledge,
                imap_url_shown=imap.shown,
                imap_url_sealed=imap.sealed,
                token_hash=inbound_tokens.hash_secret(token),
                token_prefix=mailbox.token_prefix,
                created_at=moment,
                updated_at=moment,
            )
        )
        await _record(connection, actor, "mailbox.created", mailbox)
    return MailboxWithToken(mailbox, token)


async def locked_mailbox(connection: Connection, workspace_id: str, mailbox_id: str) -> Mailbox:
    if not is_id_of(mailbox_id, "Mailbox"):
        raise not_found("Mailbox")
    row = await locked_row(connection, mailboxes, MAILBOX_COLUMNS, workspace_id, mailbox_id)
    if row is None:
        raise not_found("Mailbox")
    return mailbox_of(row)


async def update_mailbox(
    db: Database,
    actor: Actor,
    workspace_id: str,
    mailbox_id: str,
    box: SecretBox | None,
    *,
    address: str | None = None,
    name: str | None = None,
    acknowledge: bool | None = None,
    imap_url: str | Keep | None = KEEP,
) -> Mailbox:
    """Change what is given; an empty `imapUrl` removes it."""
    check = Validator()
    clean_address = _address(check, address) if address is not None else None
    clean_name = check.text("name", name, MAX_NAME, required=False) if name is not None else None
    imap = _imap_url(check, imap_url, box) if not isinstance(imap_url, Keep) else None
    check.check()
    async with db.transaction() as connection:
        before = await locked_mailbox(connection, workspace_id, mailbox_id)
        values: dict[str, object] = {}
        if clean_address is not None and clean_address != before.address:
            await move_address(connection, workspace_id, mailbox_id, before.address, clean_address)
            values["address"] = clean_address
        if name is not None and (clean_name or "") != before.name:
            values["name"] = clean_name or ""
        if acknowledge is not None and acknowledge != before.acknowledge:
            values["acknowledge"] = acknowledge
        if imap is not None:
            values["imap_url_shown"] = imap.shown
            values["imap_url_sealed"] = imap.sealed
        if not values:
            return before
        values["updated_at"] = now()
        row = await updated_row(
            connection, mailboxes, MAILBOX_COLUMNS, workspace_id, mailbox_id, **values
        )
        after = mailbox_of(row)
        changes = snapshots.changes(snapshots.mailbox(before), snapshots.mailbox(after))
        await _record(connection, actor, "mailbox.updated", after, changes)
    return after


async def rotate_mailbox_token(
    db: Database, actor: Actor, workspace_id: str, mailbox_id: str
) -> MailboxWithToken:
    """A new inbound token, returned once; the previous one stops working at once."""
    token = inbound_tokens.new_inbound_token()
    async with db.transaction() as connection:
        before = await locked_mailbox(connection, workspace_id, mailbox_id)
        row = await updated_row(
            connection,
            mailboxes,
            MAILBOX_COLUMNS,
            workspace_id,
            mailbox_id,
            token_hash=inbound_tokens.hash_secret(token),
            token_prefix=token[: inbound_tokens.TOKEN_PREFIX_LENGTH],
            updated_at=now(),
        )
        after = mailbox_of(row)
        change = {"tokenPrefix": {"from": before.token_prefix, "to": after.token_prefix}}
        await _record(connection, actor, "mailbox.updated", after, change)
    return MailboxWithToken(after, token)


async def delete_mailbox(db: Database, actor: Actor, workspace_id: str, mailbox_id: str) -> Mailbox:
    """Remove the mailbox, the raw mail it kept and its outbox; its issues and messages
    stay."""
    async with db.transaction() as connection:
        mailbox = await locked_mailbox(connection, workspace_id, mailbox_id)
        await release_address(connection, workspace_id, mailbox.address, mailbox_id)
        kept = (
            (email_outbox, email_outbox.c.mailbox_id),
            (inbound_emails, inbound_emails.c.mailbox_id),
            (mailboxes, None),
        )
        for table, column in kept:
            condition = column == mailbox_id if column is not None else table.c.id == mailbox_id
            await connection.execute(
                delete(table).where(table.c.workspace_id == workspace_id, condition)
            )
        await _record(connection, actor, "mailbox.deleted", mailbox)
    return mailbox


async def _record(
    connection: Connection,
    actor: Actor,
    kind: str,
    mailbox: Mailbox,
    changes: dict[str, Any] | None = None,
) -> None:
    await audit.record(
        connection,
        mailbox.workspace_id,
        actor,
        kind,
        ("Mailbox", mailbox.id),
        {"address": mailbox.address, **({"changes": changes} if changes else {})},
    )
    data: dict[str, object] = {"mailbox": snapshots.mailbox(mailbox)}
    if changes is not None:
        data["changes"] = changes
    await record_events(connection, mailbox.workspace_id, actor, [(kind, data)])
