"""Signing a webhook the Standard Webhooks way (docs/webhooks.md).

A receiver checks `v1,<base64 HMAC-SHA256(secret, "{id}.{timestamp}.{body}")>` over the exact
bytes it received, so the body is serialised once and those same bytes are signed and sent.
During a rotation window a second signature, made with the previous secret, rides along
(space-separated): receivers still holding the old secret keep accepting deliveries.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

import orjson

from supportdesk import __version__

USER_AGENT = f"supportdesk-webhooks/{__version__}"


def body_bytes(body: dict[str, Any]) -> bytes:
    """The body as it is signed and sent."""
    return orjson.dumps(body)


def signing_keys(
    open_secret: Callable[[str], bytes],
    sealed: str,
    previous_sealed: str | None,
    previous_expires_at: datetime | None,
    at: datetime,
) -> list[bytes]:
    """The HMAC keys an attempt at `at` signs with: the current secret's, then the previous
    one's while its window is open. `open_secret` turns a sealed secret into its bytes
    (SecretBoxError when the server key does not open it)."""
    keys = [open_secret(sealed)]
    if previous_sealed is not None and previous_expires_at is not None and previous_expires_at > at:
        keys.append(open_secret(previous_sealed))
    return keys


def signature(key: bytes, message_id: str, timestamp: int, body: bytes) -> str:
    """One `v1,…` signature of the body under one secret's bytes."""
    signed = f"{message_id}.{timestamp}.".encode() + body
    digest = hmac.new(key, signed, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode("ascii")


def signed_headers(
    message_id: str, timestamp: int, body: bytes, keys: Sequence[bytes]
) -> dict[str, str]:
    """The headers of one attempt: `keys` are the current secret's bytes, then the previous
    one's while its window lasts. `message_id` is the event id, the same on every attempt, so
    a receiver can tell a retry from a new event."""
    if not keys:
        raise ValueError("a webhook is signed with at least one secret")
    return {
        "webhook-id": message_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": " ".join(signature(key, message_id, timestamp, body) for key in keys),
        "content-type": "application/json",
        "user-agent": USER_AGENT,
    }
