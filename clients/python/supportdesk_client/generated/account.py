from typing import Optional

from .base_model import BaseModel
from .fragments import AccountFields


class Account(BaseModel):
    account: Optional["AccountAccount"]


AccountAccount = AccountFields
Account.model_rebuild()
