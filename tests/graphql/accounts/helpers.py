"""Shared steps for the account tests."""

from __future__ import annotations

from typing import Any

from tests.client import GraphQLClient

CREATE_ACCOUNT = """
mutation($input: CreateAccountInput!) {
  createAccount(input: $input) {
    account { id name domain createdAt updatedAt }
    error { code message fields { field code } }
  }
}
"""
UPDATE_ACCOUNT = """
mutation($input: UpdateAccountInput!) {
  updateAccount(input: $input) {
    account { id name domain createdAt updatedAt }
    error { code message fields { field code } }
  }
}
"""
ACCOUNT_CONTACTS = """
query($id: ID!) {
  account(id: $id) { contacts(first: 100) { totalCount edges { node { email } } } }
}
"""


def create_account_payload(api: GraphQLClient, **values: Any) -> dict[str, Any]:
    payload: dict[str, Any] = api.ok(CREATE_ACCOUNT, {"input": values})["createAccount"]
    return payload


def new_account(api: GraphQLClient, name: str = "Acme", **values: Any) -> dict[str, Any]:
    payload = create_account_payload(api, name=name, **values)
    assert payload["error"] is None, payload
    account: dict[str, Any] = payload["account"]
    return account


def update_account(api: GraphQLClient, account_id: str, **changes: Any) -> dict[str, Any]:
    payload: dict[str, Any] = api.ok(UPDATE_ACCOUNT, {"input": {"id": account_id, **changes}})[
        "updateAccount"
    ]
    return payload


def emails_of_account(api: GraphQLClient, account_id: str) -> list[str]:
    contacts = api.ok(ACCOUNT_CONTACTS, {"id": account_id})["account"]["contacts"]
    return [edge["node"]["email"] for edge in contacts["edges"]]
