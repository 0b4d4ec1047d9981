"""API keys: made with a fixed set of scopes, shown once, stored as a hash, revocable."""

from supportdesk.domain.api_keys.service import (
    ApiKey,
    CreatedKey,
    Granter,
    count_api_keys,
    count_keys_of_machine_users,
    create_api_key,
    get_api_keys,
    key_pages_of_machine_users,
    keys_of_machine_users,
    list_api_keys,
    revoke_api_key,
)

__all__ = [
    "ApiKey",
    "CreatedKey",
    "Granter",
    "count_api_keys",
    "count_keys_of_machine_users",
    "create_api_key",
    "get_api_keys",
    "key_pages_of_machine_users",
    "keys_of_machine_users",
    "list_api_keys",
    "revoke_api_key",
]
