from typing import Optional

from .base_model import BaseModel
from .fragments import AccountFields, MutationErrorFields


class UpdateAccount(BaseModel):
    update_account: Optional["UpdateAccountUpdateAccount"]


class UpdateAccountUpdateAccount(BaseModel):
    account: Optional["UpdateAccountUpdateAccountAccount"]
    error: Optional["UpdateAccountUpdateAccountError"]


UpdateAccountUpdateAccountAccount = AccountFields
UpdateAccountUpdateAccountError = MutationErrorFields
UpdateAccount.model_rebuild()
UpdateAccountUpdateAccount.model_rebuild()
