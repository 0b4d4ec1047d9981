from typing import Optional

from .base_model import BaseModel
from .fragments import AccountFields, PageInfoFields


class Accounts(BaseModel):
    accounts: Optional["AccountsAccounts"]


class AccountsAccounts(BaseModel):
    total_count: int
    page_info: "AccountsAccountsPageInfo"
    edges: list["AccountsAccountsEdges"]


AccountsAccountsPageInfo = PageInfoFields


class AccountsAccountsEdges(BaseModel):
    cursor: str
    node: "AccountsAccountsEdgesNode"


AccountsAccountsEdgesNode = AccountFields
Accounts.model_rebuild()
AccountsAccounts.model_rebuild()
AccountsAccountsEdges.model_rebuild()
