"""API keys: made with a fixed set of scopes, shown once, stored as a hash, revocable."""

from supportdesk.domain.api_keys.service import (
    ApiKey,
    CreatedKey,
    Granter,
    count_api_keys,
    create_api_key,
    get_api_keys,
    keys_of_machine_users,
    list_api_keys,
    revoke_api_key,
)

__all__ = [
    "ApiKey",
    "CreatedKey",
    "Granter",
    "count_api_keys",
    "create_api_key",
    "get_api_keys",
    "keys_of_machine_users",
    "list_api_keys",
    "revoke_api_key",
]
