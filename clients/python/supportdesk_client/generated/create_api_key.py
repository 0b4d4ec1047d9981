from typing import Optional

from .base_model import BaseModel
from .fragments import ApiKeyFields, MutationErrorFields


class CreateApiKey(BaseModel):
    create_api_key: Optional["CreateApiKeyCreateApiKey"]


class CreateApiKeyCreateApiKey(BaseModel):
    api_key: Optional["CreateApiKeyCreateApiKeyApiKey"]
    secret: Optional[str]
    error: Optional["CreateApiKeyCreateApiKeyError"]


CreateApiKeyCreateApiKeyApiKey = ApiKeyFields
CreateApiKeyCreateApiKeyError = MutationErrorFields
CreateApiKey.model_rebuild()
CreateApiKeyCreateApiKey.model_rebuild()
