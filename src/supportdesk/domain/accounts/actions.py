"""The writers of accounts: create and update, each one transaction.

An account's `domain` links contacts to it: a contact whose e-mail's domain equals it
(ignoring case; no subdomain matching) joins the account when the contact is created, when
the account is created, and when the domain is set or changed. Links are facts about the
contact once made: changing or clearing an account's domain leaves the contacts it already
has where they are, and a contact attached to another account on purpose is not moved.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import update
from sqlalchemy.exc import IntegrityError

from supportdesk.db import Database
from supportdesk.db.conflicts import insert_on
from supportdesk.db.connection import Connection
from supportdesk.db.locking import locked_row
from supportdesk.db.tables import accounts, contacts
from supportdesk.domain.accounts.models import ACCOUNT_COLUMNS, Account, account_of
from supportdesk.domain.audit import Actor
from supportdesk.domain.changes import KEEP, Keep
from supportdesk.domain.clock import now
from supportdesk.domain.contacts.service import CONTACT_COLUMNS, Contact
from supportdesk.domain.errors import DomainError, ErrorCode, FieldCode, not_found
from supportdesk.domain.events import record_events, snapshots
from supportdesk.domain.ids import is_id_of, new_id
from supportdesk.domain.rows import updated_row
from supportdesk.domain.validation import Validator, is_domain_name

# An event to record: (type, data).
Event = tuple[str, dict[str, Any]]

MAX_NAME = 200
MAX_DOMAIN = 253


def _domain(check: Validator, value: str | None) -> str | None:
    """A DNS name stored lowercase; blank means none."""
    cleaned = check.text("domain", value, MAX_DOMAIN, required=False)
    if cleaned is None:
        return None
    cleaned = cleaned.lower()
    if len(cleaned) <= MAX_DOMAIN and not is_domain_name(cleaned):
        check.fail("domain", FieldCode.INVALID, "domain is a domain name, e.g. acme.example.")
    return cleaned


def _domain_taken(domain: str) -> DomainError:
    return DomainError(
        ErrorCode.ALREADY_EXISTS,
        f"Another account of the workspace has the domain {domain!r}.",
    )


async def _link_contacts_of_domain(
    connection: Connection, workspace_id: str, account_id: str, domain: str, at: datetime
) -> list[Event]:
    """Attach the workspace's unattached contacts whose e-mail is at `domain`; each one
    moved is a `contact.updated`."""
    # Addresses hold exactly one @ and a domain holds no LIKE wildcard, so this is an exact
    # match on the part after the @ (e-mails are stored lowercase in email_normalized).
    moved = await connection.execute(
        update(contacts)
        .where(
            contacts.c.workspace_id == workspace_id,
            contacts.c.account_id.is_(None),
            contacts.c.email_normalized.like(f"%@{domain}"),
        )
        .values(account_id=account_id, updated_at=at)
        .returning(*CONTACT_COLUMNS)
    )
    events: list[Event] = []
    for row in moved:
        contact = Contact(*row)
        change = {"accountId": {"from": None, "to": account_id}}
        events.append(
            ("contact.updated", {"contact": snapshots.contact(contact), "changes": change})
        )
    return events


async def create_account(
    db: Database, actor: Actor, workspace_id: str, name: str | None, domain: str | None = None
) -> Account:
    """A new account; contacts already at its domain join it in the same transaction.
    Domains are unique in a workspace (ALREADY_EXISTS otherwise)."""
    check = Validator()
    clean_name = check.text("name", name, MAX_NAME, required=True)
    clean_domain = _domain(check, domain)
    check.check()
    assert clean_name is not None
    moment = now()
    account = Account(
        new_id("Account", moment), workspace_id, clean_name, clean_domain, moment, moment
    )
    async with db.transaction() as connection:
        statement = (
            insert_on(connection, accounts)
            .values(
                workspace_id=workspace_id,
                id=account.id,
                name=clean_name,
                domain=clean_domain,
                created_at=moment,
                updated_at=moment,
            )
            .on_conflict_do_nothing(index_elements=[accounts.c.workspace_id, accounts.c.domain])
            .returning(accounts.c.id)
        )
        if (await connection.execute(statement)).first() is None:
            raise _domain_taken(clean_domain or "")
        linked = (
            await _link_contacts_of_domain(
                connection, workspace_id, account.id, clean_domain, moment
            )
            if clean_domain is not None
            else []
        )
        created = ("account.created", {"account": snapshots.account(account)})
        await record_events(connection, workspace_id, actor, [created, *linked])
    return account


async def _locked_account(connection: Connection, workspace_id: str, account_id: str) -> Account:
    row = await locked_row(connection, accounts, ACCOUNT_COLUMNS, workspace_id, account_id)
    if row is None:
        raise not_found("Account")
    return account_of(row._mapping)


async def update_account(
    db: Database,
    actor: Actor,
    workspace_id: str,
    account_id: str,
    *,
    name: str | None = None,
    domain: str | Keep | None = KEEP,
) -> Account:
    """Rename the account and/or set its domain (None or blank clears it). Contacts at a
    newly set domain join the account in the same transaction; contacts it already has
    stay, whatever its domain becomes."""
    check = Validator()
    clean_name = check.text("name", name, MAX_NAME, required=True) if name is not None else None
    clean_domain = _domain(check, domain) if not isinstance(domain, Keep) else None
    check.check()
    if not is_id_of(account_id, "Account"):
        raise not_found("Account")
    try:
        async with db.transaction() as connection:
            account = await _locked_account(connection, workspace_id, account_id)
            changes: dict[str, object] = {}
            if clean_name is not None and clean_name != account.name:
                changes["name"] = clean_name
            if not isinstance(domain, Keep) and clean_domain != account.domain:
                changes["domain"] = clean_domain
            if not changes:
                return account
            moment = now()
            changes["updated_at"] = moment
            row = await updated_row(
                connection, accounts, ACCOUNT_COLUMNS, workspace_id, account_id, **changes
            )
            changed = account_of(row._mapping)
            linked = (
                await _link_contacts_of_domain(
                    connection, workspace_id, account_id, str(changes["domain"]), moment
                )
                if changes.get("domain") is not None
                else []
            )
            snapshot = snapshots.account(changed)
            updated = (
                "account.updated",
                {
                    "account": snapshot,
                    "changes": snapshots.changes(snapshots.account(account), snapshot),
                },
            )
            await record_events(connection, workspace_id, actor, [updated, *linked])
    except IntegrityError:
        # Only the (workspace_id, domain) uniqueness can fail here.
        raise _domain_taken(clean_domain or "") from None
    return changed
