"""Reading contacts: by e-mail, lists, and the contacts of many accounts at once."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import RowMapping, Select, bindparam, select

from supportdesk.db import Database, positional
from supportdesk.db.tables import contacts
from supportdesk.domain.contacts.service import CONTACT_COLUMNS, Contact, normalise_email
from supportdesk.domain.lists import CreationOrder, ListQuery, count_of, workspace_condition
from supportdesk.domain.matching import PATTERN, any_contains, pattern_values
from supportdesk.domain.pagination import Page, PageRequest, page_of
from supportdesk.domain.per_parent import ChildCounts, ChildPages


@dataclass(frozen=True, slots=True)
class ContactFilter:
    account_id: str | None = None
    query: str | None = None


def contact_of(row: RowMapping) -> Contact:
    return Contact(**{key: row[key] for key in Contact.__slots__})


async def get_contact_by_email(db: Database, workspace_id: str, email: str) -> Contact | None:
    """The workspace's contact with this address, in any case."""
    query = select(*CONTACT_COLUMNS).where(
        contacts.c.workspace_id == workspace_id,
        contacts.c.email_normalized == normalise_email(email),
    )
    async with db.read() as connection:
        row = (await connection.execute(query)).mappings().first()
    return contact_of(row) if row else None


def _filter_values(workspace_id: str, where: ContactFilter) -> dict[str, Any]:
    values: dict[str, Any] = {"workspace_id": workspace_id}
    if where.account_id is not None:
        values["list_account_id"] = where.account_id
    return {**values, **pattern_values(where.query)}


def _filtered(query: Select[Any], names: Collection[str]) -> Select[Any]:
    query = query.where(workspace_condition(contacts.c.workspace_id))
    if "list_account_id" in names:
        query = query.where(contacts.c.account_id == bindparam("list_account_id"))
    if PATTERN in names:
        query = query.where(any_contains(contacts.c.email_normalized, contacts.c.name))
    return query


_LIST = CreationOrder(contacts, CONTACT_COLUMNS, _filtered)


def list_query(workspace_id: str, page: PageRequest, where: ContactFilter) -> ListQuery:
    """One page of the list in creation order (plus one row that says whether there is
    more) and the count of what the filter matches."""
    return _LIST.query(page, _filter_values(workspace_id, where))


async def list_contacts(
    db: Database, workspace_id: str, page: PageRequest, where: ContactFilter
) -> Page[Contact]:
    """Contacts in creation order; `query` matches a part of the e-mail or the name,
    ignoring case."""
    query = list_query(workspace_id, page, where)
    async with db.read() as connection:
        rows = await connection.execute(query.rows, query.values)
        return page_of([contact_of(row) for row in rows.mappings()], page.first)


async def count_contacts(db: Database, workspace_id: str, where: ContactFilter) -> int:
    return await count_of(db, list_query(workspace_id, PageRequest(0, None), where))


_IN_WORKSPACE = contacts.c.workspace_id == bindparam("workspace_id")
_OF_ACCOUNTS = ChildPages(
    select(*CONTACT_COLUMNS).where(_IN_WORKSPACE),
    contacts.c.account_id,
    contacts.c.id,
    positional(Contact, CONTACT_COLUMNS),
)
_COUNT_OF_ACCOUNTS = ChildCounts(contacts, contacts.c.account_id, _IN_WORKSPACE)


async def contacts_of_accounts(
    db: Database, workspace_id: str, account_ids: Sequence[str], page: PageRequest
) -> dict[str, Page[Contact]]:
    """The same page of each account's contacts, oldest first, in one statement."""
    return await _OF_ACCOUNTS.fetch(db, account_ids, page, workspace_id=workspace_id)


async def count_contacts_of_accounts(
    db: Database, workspace_id: str, account_ids: Sequence[str]
) -> dict[str, int]:
    return await _COUNT_OF_ACCOUNTS.fetch(db, account_ids, workspace_id=workspace_id)
