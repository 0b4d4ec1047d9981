"""Accounts: the companies contacts belong to, matched to contacts by e-mail domain."""

from supportdesk.domain.accounts.actions import create_account, update_account
from supportdesk.domain.accounts.models import Account, AccountFilter
from supportdesk.domain.accounts.queries import count_accounts, get_accounts, list_accounts

__all__ = [
    "Account",
    "AccountFilter",
    "count_accounts",
    "create_account",
    "get_accounts",
    "list_accounts",
    "update_account",
]
