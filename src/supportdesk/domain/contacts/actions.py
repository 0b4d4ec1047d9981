"""The writers of contacts: create and update, each one transaction.

A contact created without an account joins the account whose domain equals its e-mail's
domain (ignoring case), as createIssue's requester does. Moving a contact's e-mail to
another domain without naming an account moves it to the account of the new domain when
there is one (and leaves its account alone when there is none).
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from supportdesk.db import Database
from supportdesk.db.conflicts import insert_on
from supportdesk.db.connection import Connection
from supportdesk.db.locking import locked_row
from supportdesk.db.tables import accounts, contacts
from supportdesk.domain.audit import Actor
from supportdesk.domain.changes import KEEP, Keep
from supportdesk.domain.clock import now
from supportdesk.domain.contacts.queries import contact_of
from supportdesk.domain.contacts.service import (
    CONTACT_COLUMNS,
    Contact,
    account_for_domain,
    email_domain,
    normalise_email,
)
from supportdesk.domain.errors import DomainError, ErrorCode, FieldCode, FieldError, not_found
from supportdesk.domain.events import record_events, snapshots
from supportdesk.domain.ids import is_id_of, new_id
from supportdesk.domain.rows import updated_row
from supportdesk.domain.validation import Validator

MAX_NAME = 200


def _email_taken() -> DomainError:
    return DomainError(
        ErrorCode.ALREADY_EXISTS, "The workspace already has a contact with this e-mail address."
    )


def _unknown_account() -> DomainError:
    # An id given as a value (not the object acted on): UNKNOWN, as an unknown label or
    # assignee is.
    return DomainError(
        ErrorCode.VALIDATION_FAILED,
        "accountId names no account of this workspace.",
        [FieldError("accountId", FieldCode.UNKNOWN)],
    )


async def _check_account(connection: Connection, workspace_id: str, account_id: str) -> None:
    """An account id given by the caller must name an account of the workspace."""
    if not is_id_of(account_id, "Account"):
        raise _unknown_account()
    found = await connection.scalar(
        select(accounts.c.id).where(
            accounts.c.workspace_id == workspace_id, accounts.c.id == account_id
        )
    )
    if found is None:
        raise _unknown_account()


async def create_contact(
    db: Database,
    actor: Actor,
    workspace_id: str,
    email: str | None,
    name: str | None = None,
    account_id: str | None = None,
) -> Contact:
    """A new contact; e-mails are unique in a workspace ignoring case (ALREADY_EXISTS).
    Without `account_id` the contact joins the account of its e-mail's domain, if any."""
    check = Validator()
    clean_email = check.email("email", email, required=True)
    clean_name = check.text("name", name, MAX_NAME, required=False)
    check.check()
    assert clean_email is not None
    moment = now()
    async with db.transaction() as connection:
        statement = (
            insert_on(connection, contacts)
            .values(
                workspace_id=workspace_id,
                id=new_id("Contact", moment),
                email=clean_email,
                email_normalized=normalise_email(clean_email),
                name=clean_name,
                account_id=account_id
                if account_id is not None
                else account_for_domain(workspace_id, email_domain(clean_email)),
                created_at=moment,
                updated_at=moment,
            )
            .on_conflict_do_nothing(
                index_elements=[contacts.c.workspace_id, contacts.c.email_normalized]
            )
            .returning(*CONTACT_COLUMNS)
        )
        if account_id is not None:
            await _check_account(connection, workspace_id, account_id)
        row = (await connection.execute(statement)).mappings().first()
        if row is None:
            raise _email_taken()
        created = contact_of(row)
        await record_events(
            connection,
            workspace_id,
            actor,
            [("contact.created", {"contact": snapshots.contact(created)})],
        )
    return created


async def _locked_contact(connection: Connection, workspace_id: str, contact_id: str) -> Contact:
    row = await locked_row(connection, contacts, CONTACT_COLUMNS, workspace_id, contact_id)
    if row is None:
        raise not_found("Contact")
    return contact_of(row._mapping)


async def _email_used_by_another(
    connection: Connection, workspace_id: str, contact_id: str, email: str
) -> bool:
    found = await connection.scalar(
        select(contacts.c.id).where(
            contacts.c.workspace_id == workspace_id,
            contacts.c.email_normalized == normalise_email(email),
            contacts.c.id != contact_id,
        )
    )
    return found is not None


async def _changes(
    connection: Connection,
    contact: Contact,
    email: str | None,
    name: str | Keep | None,
    account_id: str | Keep | None,
) -> dict[str, object]:
    changes: dict[str, object] = {}
    if email is not None and email != contact.email:
        if await _email_used_by_another(connection, contact.workspace_id, contact.id, email):
            raise _email_taken()
        changes.update(email=email, email_normalized=normalise_email(email))
        if isinstance(account_id, Keep) and email_domain(email) != email_domain(contact.email):
            domain_account = await connection.scalar(
                select(account_for_domain(contact.workspace_id, email_domain(email)))
            )
            if domain_account is not None:
                changes["account_id"] = domain_account
    if not isinstance(name, Keep) and name != contact.name:
        changes["name"] = name
    if not isinstance(account_id, Keep):
        if account_id is not None:
            await _check_account(connection, contact.workspace_id, account_id)
        changes["account_id"] = account_id
    if changes.get("account_id", contact.account_id) == contact.account_id:
        changes.pop("account_id", None)
    return changes


async def _record_update(
    connection: Connection, actor: Actor, before: Contact, after: Contact
) -> None:
    snapshot = snapshots.contact(after)
    changes = snapshots.changes(snapshots.contact(before), snapshot)
    await record_events(
        connection,
        after.workspace_id,
        actor,
        [("contact.updated", {"contact": snapshot, "changes": changes})],
    )


async def update_contact(
    db: Database,
    actor: Actor,
    workspace_id: str,
    contact_id: str,
    *,
    email: str | None = None,
    name: str | Keep | None = KEEP,
    account_id: str | Keep | None = KEEP,
) -> Contact:
    """Change what is given: `name` None clears it, `account_id` None detaches the contact
    from its account. A new e-mail must be free in the workspace (ALREADY_EXISTS)."""
    check = Validator()
    clean_email = check.email("email", email, required=True) if email is not None else None
    clean_name = (
        check.text("name", name, MAX_NAME, required=False) if not isinstance(name, Keep) else KEEP
    )
    check.check()
    if not is_id_of(contact_id, "Contact"):
        raise not_found("Contact")
    try:
        async with db.transaction() as connection:
            contact = await _locked_contact(connection, workspace_id, contact_id)
            changes = await _changes(connection, contact, clean_email, clean_name, account_id)
            if not changes:
                return contact
            changes["updated_at"] = now()
            row = await updated_row(
                connection, contacts, CONTACT_COLUMNS, workspace_id, contact_id, **changes
            )
            changed = contact_of(row._mapping)
            await _record_update(connection, actor, contact, changed)
    except IntegrityError:
        # A concurrent writer took the e-mail between our check and our update.
        raise _email_taken() from None
    return changed
