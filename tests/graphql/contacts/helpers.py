"""Shared steps for the contact tests."""

from __future__ import annotations

from typing import Any

from tests.client import GraphQLClient

CREATE_CONTACT = """
mutation($input: CreateContactInput!) {
  createContact(input: $input) {
    contact { id email name createdAt updatedAt account { id domain } }
    error { code message fields { field code } }
  }
}
"""
UPDATE_CONTACT = """
mutation($input: UpdateContactInput!) {
  updateContact(input: $input) {
    contact { id email name createdAt updatedAt account { id domain } }
    error { code message fields { field code } }
  }
}
"""
CONTACT = """
query($id: ID!) { contact(id: $id) { id email name account { id name domain } } }
"""


def create_contact_payload(api: GraphQLClient, **values: Any) -> dict[str, Any]:
    payload: dict[str, Any] = api.ok(CREATE_CONTACT, {"input": values})["createContact"]
    return payload


def new_contact(
    api: GraphQLClient, email: str = "jen@example.com", **values: Any
) -> dict[str, Any]:
    payload = create_contact_payload(api, email=email, **values)
    assert payload["error"] is None, payload
    contact: dict[str, Any] = payload["contact"]
    return contact


def update_contact(api: GraphQLClient, contact_id: str, **changes: Any) -> dict[str, Any]:
    payload: dict[str, Any] = api.ok(UPDATE_CONTACT, {"input": {"id": contact_id, **changes}})[
        "updateContact"
    ]
    return payload


def account_of_contact(api: GraphQLClient, contact_id: str) -> str | None:
    account = api.ok(CONTACT, {"id": contact_id})["contact"]["account"]
    return account["id"] if account else None
