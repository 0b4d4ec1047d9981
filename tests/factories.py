"""Test data made through the API, the way a client makes it."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta
from typing import Any

from supportdesk.domain.ids import first_id_at
from tests.client import GraphQLClient

CREATE_MACHINE_USER = """
mutation($input: CreateMachineUserInput!) {
  createMachineUser(input: $input) {
    machineUser { id name description managed createdAt updatedAt }
    error { code message fields { field code } }
  }
}
"""

CREATE_API_KEY = """
mutation($input: CreateApiKeyInput!) {
  createApiKey(input: $input) {
    apiKey { id name keyPrefix scopes kind status createdAt lastUsedAt expiresAt revokedAt
             machineUser { id name } }
    secret
    error { code message fields { field code } }
  }
}
"""

REVOKE_API_KEY = """
mutation($id: ID!) {
  revokeApiKey(id: $id) {
    apiKey { id status revokedAt }
    error { code message fields { field code } }
  }
}
"""


def machine_user(api: GraphQLClient, name: str, description: str | None = None) -> dict[str, Any]:
    """A new machine user; fails the test when the API refuses."""
    payload = api.ok(CREATE_MACHINE_USER, {"input": {"name": name, "description": description}})[
        "createMachineUser"
    ]
    assert payload["error"] is None, payload
    return payload["machineUser"]


def api_key(
    api: GraphQLClient,
    machine_user_id: str,
    scopes: list[str],
    *,
    name: str = "test key",
    expires_at: str | None = None,
) -> dict[str, Any]:
    """The createApiKey payload (apiKey and secret) of a new key."""
    variables = {
        "input": {
            "machineUserId": machine_user_id,
            "name": name,
            "scopes": scopes,
            "expiresAt": expires_at,
        }
    }
    payload = api.ok(CREATE_API_KEY, variables)["createApiKey"]
    assert payload["error"] is None, payload
    return payload


# Long before any row of the suite was made, a millisecond apart each: the same ids in every
# collecting process (pytest-xdist compares the parametrized tests' names).
_MISSING_MOMENTS = (
    datetime(2001, 1, 1, tzinfo=UTC) + timedelta(milliseconds=n) for n in itertools.count()
)


def missing_id(type_name: str) -> str:
    """A well-formed id of the type that names nothing."""
    return first_id_at(type_name, next(_MISSING_MOMENTS))
