"""Webhook secrets sealed under the server's keys, and the Standard Webhooks secret format."""

from __future__ import annotations

import base64
import hashlib
import hmac
import time

import pytest
import standardwebhooks

from supportdesk.auth.secret_box import (
    SecretBox,
    SecretBoxError,
    new_server_key,
    new_webhook_secret,
    parse_server_keys,
    webhook_secret_bytes,
)


def test_what_is_sealed_opens() -> None:
    box = SecretBox([new_server_key()])
    secret = new_webhook_secret()

    assert box.open(box.seal(secret)) == secret


def test_the_sealed_text_does_not_show_the_plaintext() -> None:
    box = SecretBox([new_server_key()])
    secret = new_webhook_secret()

    sealed = box.seal(secret)

    assert secret not in sealed
    assert secret.removeprefix("whsec_") not in sealed
    assert box.seal(secret) != sealed  # a fresh IV each time: equal secrets do not look equal


def test_after_a_rotation_the_old_key_still_opens_and_the_new_one_seals() -> None:
    old, new = new_server_key(), new_server_key()
    sealed_before = SecretBox([old]).seal("whsec_before")

    rotated = SecretBox([new, old])
    sealed_after = rotated.seal("whsec_after")

    assert rotated.open(sealed_before) == "whsec_before"
    assert SecretBox([new]).open(sealed_after) == "whsec_after"
    with pytest.raises(SecretBoxError):
        SecretBox([old]).open(sealed_after)


@pytest.mark.parametrize(
    "token",
    ["sealed-by-another-key", "not a token", "", "clé"],
    ids=["another-key", "garbage", "empty", "non-ascii"],
)
def test_a_box_without_the_key_refuses(token: str) -> None:
    if token == "sealed-by-another-key":
        token = SecretBox([new_server_key()]).seal("whsec_x")

    with pytest.raises(SecretBoxError, match="no configured server key opens"):
        SecretBox([new_server_key()]).open(token)


@pytest.mark.parametrize("keys", [[], [""]], ids=["no-key", "empty-key"])
def test_a_box_needs_a_key(keys: list[str]) -> None:
    with pytest.raises(SecretBoxError):
        SecretBox(keys)


def test_any_configured_string_is_a_server_key() -> None:
    box = SecretBox(["correct horse battery staple"])

    assert box.open(box.seal("whsec_x")) == "whsec_x"


@pytest.mark.parametrize(
    ("configured", "keys"),
    [("one", ["one"]), (" new , old ", ["new", "old"]), ("new,,old,", ["new", "old"]), ("", [])],
    ids=["one", "stripped", "empties-dropped", "none"],
)
def test_parse_server_keys(configured: str, keys: list[str]) -> None:
    assert parse_server_keys(configured) == keys


def test_a_new_server_key_is_32_random_bytes_in_url_safe_base64() -> None:
    key = new_server_key()

    assert len(base64.urlsafe_b64decode(key + "=" * (-len(key) % 4))) == 32
    assert set(key) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    assert new_server_key() != key


def test_a_webhook_secret_is_whsec_and_32_bytes_of_standard_base64() -> None:
    secret = new_webhook_secret()

    assert secret.startswith("whsec_")
    assert len(webhook_secret_bytes(secret)) == 32
    assert base64.b64encode(webhook_secret_bytes(secret)).decode() == secret[len("whsec_") :]
    assert new_webhook_secret() != secret


@pytest.mark.parametrize(
    "secret",
    ["c2VjcmV0", "whsec_", "whsec_not base64!"],
    ids=["no-prefix", "empty", "not-base64"],
)
def test_a_malformed_webhook_secret_is_refused(secret: str) -> None:
    with pytest.raises(ValueError, match="webhook secret"):
        webhook_secret_bytes(secret)


def test_standard_webhooks_verifies_what_our_secret_signs() -> None:
    secret = new_webhook_secret()
    body = '{"id":"evt_1","type":"webhook.test"}'
    timestamp = str(int(time.time()))
    signed = f"evt_1.{timestamp}.{body}".encode()
    signature = hmac.digest(webhook_secret_bytes(secret), signed, hashlib.sha256)
    headers = {
        "webhook-id": "evt_1",
        "webhook-timestamp": timestamp,
        "webhook-signature": "v1," + base64.b64encode(signature).decode(),
    }

    payload = standardwebhooks.Webhook(secret).verify(body, headers)

    assert payload == {"id": "evt_1", "type": "webhook.test"}
