"""Reading accounts. Every read is one statement, whatever the page size."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from sqlalchemy import Select, bindparam

from supportdesk.db import Database
from supportdesk.db.tables import accounts
from supportdesk.domain.accounts.models import ACCOUNT_COLUMNS, Account, AccountFilter, account_of
from supportdesk.domain.lists import CreationOrder, ListQuery, count_of, workspace_condition
from supportdesk.domain.matching import PATTERN, any_contains, pattern_values
from supportdesk.domain.pagination import Page, PageRequest, page_of
from supportdesk.domain.per_parent import ById

_ACCOUNTS = ById(ACCOUNT_COLUMNS, Account)


async def get_accounts(db: Database, workspace_id: str, ids: Sequence[str]) -> dict[str, Account]:
    """Accounts by id, one statement for any number of them."""
    return await _ACCOUNTS.fetch(db, workspace_id, ids)


def _filter_values(workspace_id: str, where: AccountFilter) -> dict[str, Any]:
    values: dict[str, Any] = {"workspace_id": workspace_id}
    if where.domain is not None:
        values["list_domain"] = where.domain.strip().lower()
    return {**values, **pattern_values(where.query)}


def _filtered(query: Select[Any], names: Collection[str]) -> Select[Any]:
    query = query.where(workspace_condition(accounts.c.workspace_id))
    if "list_domain" in names:
        query = query.where(accounts.c.domain == bindparam("list_domain"))
    if PATTERN in names:
        query = query.where(any_contains(accounts.c.name, accounts.c.domain))
    return query


_LIST = CreationOrder(accounts, ACCOUNT_COLUMNS, _filtered)


def list_query(workspace_id: str, page: PageRequest, where: AccountFilter) -> ListQuery:
    """One page of the list in creation order (plus one row that says whether there is
    more) and the count of what the filter matches."""
    return _LIST.query(page, _filter_values(workspace_id, where))


async def list_accounts(
    db: Database, workspace_id: str, page: PageRequest, where: AccountFilter
) -> Page[Account]:
    """Accounts in creation order; `domain` matches exactly (any case), `query` matches a
    part of the name or the domain, ignoring case."""
    query = list_query(workspace_id, page, where)
    async with db.read() as connection:
        rows = await connection.execute(query.rows, query.values)
        return page_of([account_of(row) for row in rows.mappings()], page.first)


async def count_accounts(db: Database, workspace_id: str, where: AccountFilter) -> int:
    return await count_of(db, list_query(workspace_id, PageRequest(0, None), where))
