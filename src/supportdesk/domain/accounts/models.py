"""Accounts (the companies contacts belong to), as the rest of the service sees them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import RowMapping

from supportdesk.db.tables import accounts


@dataclass(frozen=True, slots=True)
class Account:
    id: str
    workspace_id: str
    name: str
    domain: str | None
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class AccountFilter:
    domain: str | None = None
    query: str | None = None


ACCOUNT_COLUMNS = (
    accounts.c.id,
    accounts.c.workspace_id,
    accounts.c.name,
    accounts.c.domain,
    accounts.c.created_at,
    accounts.c.updated_at,
)


def account_of(row: RowMapping) -> Account:
    return Account(**{key: row[key] for key in Account.__slots__})
