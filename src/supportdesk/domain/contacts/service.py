"""Reading contacts, and the requester upsert that createIssue relies on."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Table, and_, bindparam, case, func, select

from supportdesk.db import Database
from supportdesk.db.conflicts import PerDialect
from supportdesk.db.connection import Connection
from supportdesk.db.tables import accounts, contacts
from supportdesk.domain.clock import now
from supportdesk.domain.ids import new_id
from supportdesk.domain.per_parent import ById


@dataclass(frozen=True, slots=True)
class Contact:
    id: str
    workspace_id: str
    email: str
    name: str | None
    account_id: str | None
    created_at: datetime
    updated_at: datetime


CONTACT_COLUMNS = (
    contacts.c.id,
    contacts.c.workspace_id,
    contacts.c.email,
    contacts.c.name,
    contacts.c.account_id,
    contacts.c.created_at,
    contacts.c.updated_at,
)


def normalise_email(email: str) -> str:
    return email.strip().lower()


def email_domain(email: str) -> str:
    return email.rsplit("@", 1)[-1].lower()


def account_for_domain(workspace_id: str, domain: str):  # type: ignore[no-untyped-def]
    """A scalar subquery: the account whose domain equals `domain`, if any."""
    return (
        select(accounts.c.id)
        .where(accounts.c.workspace_id == workspace_id, accounts.c.domain == domain)
        .scalar_subquery()
    )


def _requester_upsert(insert: Callable[[Table], Any]) -> Any:
    """The upsert, built once per dialect with bound parameters (building it per call
    cost a third of createIssue's CPU)."""
    workspace: Any = bindparam("workspace_id")
    statement = insert(contacts).values(
        workspace_id=workspace,
        id=bindparam("id"),
        email=bindparam("email"),
        email_normalized=bindparam("email_normalized"),
        name=bindparam("name"),
        account_id=(
            select(accounts.c.id)
            .where(accounts.c.workspace_id == workspace, accounts.c.domain == bindparam("domain"))
            .scalar_subquery()
        ),
        created_at=bindparam("moment"),
        updated_at=bindparam("moment"),
    )
    # On a known e-mail the update changes nothing but a missing name (and then moves
    # updated_at, which tells the caller); it makes RETURNING give the existing row in the
    # same statement.
    fills_name = and_(contacts.c.name.is_(None), statement.excluded.name.is_not(None))
    return statement.on_conflict_do_update(
        index_elements=[contacts.c.workspace_id, contacts.c.email_normalized],
        set_={
            "name": func.coalesce(contacts.c.name, statement.excluded.name),
            "updated_at": case(
                (fills_name, statement.excluded.updated_at), else_=contacts.c.updated_at
            ),
        },
    ).returning(*CONTACT_COLUMNS)


_REQUESTER_UPSERT = PerDialect(_requester_upsert)


@dataclass(frozen=True, slots=True)
class Requester:
    contact: Contact
    created: bool
    # A known contact without a name took the one given.
    named: bool


async def upsert_requester(
    connection: Connection, workspace_id: str, email: str, name: str | None
) -> Requester:
    """The workspace's contact with this e-mail (any case), created when new and linked to
    the account of its e-mail's domain; a known contact without a name takes `name`. One
    statement, safe under concurrency."""
    moment = now()
    contact_id = new_id("Contact", moment)
    parameters = {
        "workspace_id": workspace_id,
        "id": contact_id,
        "email": email,
        "email_normalized": normalise_email(email),
        "name": name,
        "domain": email_domain(email),
        "moment": moment,
    }
    statement = _REQUESTER_UPSERT.on(connection)
    [row] = await connection.rows(statement, parameters)
    contact = Contact(*row)
    created = contact.id == contact_id
    return Requester(contact, created, not created and contact.updated_at == moment)


_CONTACTS = ById(CONTACT_COLUMNS, Contact)


async def get_contacts(db: Database, workspace_id: str, ids: Sequence[str]) -> dict[str, Contact]:
    """Contacts by id, one statement for any number of them."""
    return await _CONTACTS.fetch(db, workspace_id, ids)
