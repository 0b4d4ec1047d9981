from typing import Optional

from .base_model import BaseModel
from .fragments import AccountFields, MutationErrorFields


class CreateAccount(BaseModel):
    create_account: Optional["CreateAccountCreateAccount"]


class CreateAccountCreateAccount(BaseModel):
    account: Optional["CreateAccountCreateAccountAccount"]
    error: Optional["CreateAccountCreateAccountError"]


CreateAccountCreateAccountAccount = AccountFields
CreateAccountCreateAccountError = MutationErrorFields
CreateAccount.model_rebuild()
CreateAccountCreateAccount.model_rebuild()
