from typing import Optional

from .base_model import BaseModel
from .fragments import ApiKeyFields, MutationErrorFields


class RevokeApiKey(BaseModel):
    revoke_api_key: Optional["RevokeApiKeyRevokeApiKey"]


class RevokeApiKeyRevokeApiKey(BaseModel):
    api_key: Optional["RevokeApiKeyRevokeApiKeyApiKey"]
    error: Optional["RevokeApiKeyRevokeApiKeyError"]


RevokeApiKeyRevokeApiKeyApiKey = ApiKeyFields
RevokeApiKeyRevokeApiKeyError = MutationErrorFields
RevokeApiKey.model_rebuild()
RevokeApiKeyRevokeApiKey.model_rebuild()
