"""Webhook endpoints and their deliveries through GraphQL, and waiting for a condition."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

from tests.client import GraphQLClient

T = TypeVar("T")

CREATE_ENDPOINT = """
mutation($input: CreateWebhookEndpointInput!) {
  createWebhookEndpoint(input: $input) {
    webhookEndpoint { id }
    secret
    error { code message fields { field code } }
  }
}
"""
ENDPOINT = """
query($id: ID!) {
  node(id: $id) {
    ... on WebhookEndpoint {
      id enabled status disabledReason
      deliveries(first: 100) {
        edges { node { id status attempts lastAttemptAt nextAttemptAt lastResponseStatus
                       lastError durationMs event { id type } } }
      }
    }
  }
}
"""
ROTATE = """
mutation($input: RotateWebhookSecretInput!) {
  rotateWebhookSecret(input: $input) { secret error { code message } }
}
"""
REDELIVER = """
mutation($input: RedeliverWebhookEventInput!) {
  redeliverWebhookEvent(input: $input) { delivery { id } error { code message } }
}
"""
REPLAY = """
mutation($input: ReplayWebhookEventsInput!) {
  replayWebhookEvents(input: $input) { count error { code message } }
}
"""
CREATE_CONTACT = """
mutation($input: CreateContactInput!) {
  createContact(input: $input) { contact { id } error { code message } }
}
"""


def create_endpoint(api: GraphQLClient, url: str, event_types: list[str]) -> tuple[str, str]:
    """A new endpoint for these event types; its id and its secret."""
    payload = api.ok(CREATE_ENDPOINT, {"input": {"url": url, "eventTypes": event_types}})[
        "createWebhookEndpoint"
    ]
    assert payload["error"] is None, payload
    return payload["webhookEndpoint"]["id"], payload["secret"]


def endpoint(api: GraphQLClient, endpoint_id: str) -> dict[str, Any]:
    found: dict[str, Any] = api.ok(ENDPOINT, {"id": endpoint_id})["node"]
    return found


def deliveries(api: GraphQLClient, endpoint_id: str) -> list[dict[str, Any]]:
    """Newest first."""
    return [edge["node"] for edge in endpoint(api, endpoint_id)["deliveries"]["edges"]]


def new_contact(api: GraphQLClient, n: int = 0) -> str:
    email = f"person-{time.monotonic_ns()}-{n}@example.com"
    payload = api.ok(CREATE_CONTACT, {"input": {"email": email}})["createContact"]
    assert payload["error"] is None, payload
    contact_id: str = payload["contact"]["id"]
    return contact_id


def eventually(check: Callable[[], T | None], timeout: float = 10.0, what: str = "") -> T:
    """The first truthy answer of `check`, asked every 50 ms until the deadline."""
    deadline = time.monotonic() + timeout
    while True:
        answer = check()
        if answer:
            return answer
        assert time.monotonic() < deadline, f"not within {timeout} s: {what or check}"
        time.sleep(0.05)
