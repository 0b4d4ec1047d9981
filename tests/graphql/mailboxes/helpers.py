"""Mailboxes through the API, for the mailbox and e-mail tests."""

from __future__ import annotations

import secrets
from typing import Any

from tests.client import GraphQLClient

MAILBOX_FIELDS = "id address name acknowledge imapUrl tokenPrefix createdAt updatedAt"
ERROR = "error { code message fields { field code } }"

CREATE = f"""
mutation($input: CreateMailboxInput!) {{
  createMailbox(input: $input) {{ mailbox {{ {MAILBOX_FIELDS} }} inboundToken {ERROR} }}
}}
"""
UPDATE = f"""
mutation($input: UpdateMailboxInput!) {{
  updateMailbox(input: $input) {{ mailbox {{ {MAILBOX_FIELDS} }} {ERROR} }}
}}
"""
DELETE = f"""
mutation($id: ID!) {{ deleteMailbox(id: $id) {{ mailbox {{ id address }} {ERROR} }} }}
"""
ROTATE = f"""
mutation($id: ID!) {{
  rotateMailboxToken(id: $id) {{ mailbox {{ {MAILBOX_FIELDS} }} inboundToken {ERROR} }}
}}
"""
LIST = f"""
query {{ mailboxes(first: 50) {{ totalCount edges {{ node {{ {MAILBOX_FIELDS} }} }} }} }}
"""


def unique_address(local: str = "support") -> str:
    """An address on a domain no other test's workspace has (a mail domain is one
    workspace's; `.example` is a top-level domain of its own, so each is its own)."""
    return f"{local}@help-{secrets.token_hex(5)}.example"


def create_payload(api: GraphQLClient, **values: Any) -> dict[str, Any]:
    values.setdefault("address", unique_address())
    payload: dict[str, Any] = api.ok(CREATE, {"input": values})["createMailbox"]
    return payload


def new_mailbox(api: GraphQLClient, **values: Any) -> dict[str, Any]:
    payload = create_payload(api, **values)
    assert payload["error"] is None, payload
    return payload
