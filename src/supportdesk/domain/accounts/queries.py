"""Reading accounts. Every read is one statement, whatever the page size."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Select, func, select

from supportdesk.db import Database
from supportdesk.db.connection import Connection
from supportdesk.db.tables import accounts
from supportdesk.domain.accounts.models import ACCOUNT_COLUMNS, Account, AccountFilter, account_of
from supportdesk.domain.matching import any_contains, cleaned_query
from supportdesk.domain.pagination import Page, PageRequest, page_of
from supportdesk.domain.per_parent import ById

_ACCOUNTS = ById(ACCOUNT_COLUMNS, Account)


async def get_accounts(db: Database, workspace_id: str, ids: Sequence[str]) -> dict[str, Account]:
    """Accounts by id, one statement for any number of them."""
    return await _ACCOUNTS.fetch(db, workspace_id, ids)


def _filtered(query: Select[Any], workspace_id: str, where: AccountFilter) -> Select[Any]:
    query = query.where(accounts.c.workspace_id == workspace_id)
    if where.domain is not None:
        query = query.where(accounts.c.domain == where.domain.strip().lower())
    text = cleaned_query(where.query)
    if text is not None:
        query = query.where(any_contains(text, accounts.c.name, accounts.c.domain))
    return query


async def list_accounts(
    connection: Connection, workspace_id: str, page: PageRequest, where: AccountFilter
) -> Page[Account]:
    """Accounts in creation order; `domain` matches exactly (any case), `query` matches a
    part of the name or the domain, ignoring case."""
    rows = await connection.execute(page_statement(workspace_id, page, where))
    return page_of([account_of(row) for row in rows.mappings()], page.first)


def page_statement(workspace_id: str, page: PageRequest, where: AccountFilter) -> Select[Any]:
    """One page of the list (plus one row that says whether there is more)."""
    query = _filtered(select(*ACCOUNT_COLUMNS), workspace_id, where)
    if page.after:
        query = query.where(accounts.c.id > page.after)
    return query.order_by(accounts.c.id).limit(page.first + 1)


def count_statement(workspace_id: str, where: AccountFilter) -> Select[Any]:
    return _filtered(select(func.count()).select_from(accounts), workspace_id, where)


async def count_accounts(connection: Connection, workspace_id: str, where: AccountFilter) -> int:
    return int(await connection.scalar(count_statement(workspace_id, where)) or 0)
