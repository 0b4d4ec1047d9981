"""Webhook endpoints through the API, for the webhook tests."""

from __future__ import annotations

from typing import Any

from tests.client import GraphQLClient

ENDPOINT_FIELDS = """
id url description eventTypes enabled status disabledReason secretPrefix createdAt updatedAt
"""
ERROR = "error { code message fields { field code } }"

CREATE = f"""
mutation($input: CreateWebhookEndpointInput!) {{
  createWebhookEndpoint(input: $input) {{ webhookEndpoint {{ {ENDPOINT_FIELDS} }} secret {ERROR} }}
}}
"""
UPDATE = f"""
mutation($input: UpdateWebhookEndpointInput!) {{
  updateWebhookEndpoint(input: $input) {{ webhookEndpoint {{ {ENDPOINT_FIELDS} }} {ERROR} }}
}}
"""
DELETE = f"""
mutation($id: ID!) {{
  deleteWebhookEndpoint(id: $id) {{ webhookEndpoint {{ id url }} {ERROR} }}
}}
"""
ROTATE = f"""
mutation($input: RotateWebhookSecretInput!) {{
  rotateWebhookSecret(input: $input) {{ webhookEndpoint {{ {ENDPOINT_FIELDS} }} secret {ERROR} }}
}}
"""
LIST = f"""
query($first: Int, $after: String) {{
  webhookEndpoints(first: $first, after: $after) {{
    totalCount
    edges {{ cursor node {{ {ENDPOINT_FIELDS} }} }}
    pageInfo {{ hasNextPage endCursor }}
  }}
}}
"""
SEND_TEST = f"""
mutation($id: ID!) {{
  sendTestWebhook(id: $id) {{
    delivery {{ id eventId eventType status attempts event {{ id }} }}
    {ERROR}
  }}
}}
"""

# A public address written as a literal: the tests need no DNS, and nothing is sent to it
# (the shared test servers do not dispatch).
RECEIVER = "https://93.184.215.14/supportdesk"


def create_payload(api: GraphQLClient, **values: Any) -> dict[str, Any]:
    values.setdefault("url", RECEIVER)
    payload: dict[str, Any] = api.ok(CREATE, {"input": values})["createWebhookEndpoint"]
    return payload


def new_endpoint(api: GraphQLClient, **values: Any) -> dict[str, Any]:
    payload = create_payload(api, **values)
    assert payload["error"] is None, payload
    return payload


REDELIVER = f"""
mutation($input: RedeliverWebhookEventInput!) {{
  redeliverWebhookEvent(input: $input) {{
    delivery {{ id eventId eventType status event {{ id type sequence }} }}
    {ERROR}
  }}
}}
"""
REPLAY = f"""
mutation($input: ReplayWebhookEventsInput!) {{
  replayWebhookEvents(input: $input) {{ count {ERROR} }}
}}
"""
DELIVERIES = """
query($first: Int, $status: String) {
  webhookEndpoints {
    edges { node { id deliveries(first: $first, filter: {status: $status}) {
      totalCount edges { node { id eventId eventType status attempts } }
    } } }
  }
}
"""
