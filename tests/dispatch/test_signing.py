"""Signatures any Standard Webhooks library accepts (CONTRACT §11 "Signing")."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from supportdesk import __version__
from supportdesk.auth.secret_box import (
    SecretBox,
    new_server_key,
    new_webhook_secret,
    webhook_secret_bytes,
)
from supportdesk.dispatch.signing import body_bytes, signed_headers, signing_keys
from supportdesk.domain.clock import now

BODY = {"id": "evt_1", "type": "issue.created", "data": {"subject": "Crème brûlée ☕"}}


def test_a_receiver_verifies_the_exact_bytes_sent() -> None:
    secret = new_webhook_secret()
    body = body_bytes(BODY)

    headers = signed_headers("evt_1", int(time.time()), body, [webhook_secret_bytes(secret)])

    assert Webhook(secret).verify(body, headers) == BODY
    assert headers["webhook-id"] == "evt_1"
    assert headers["webhook-signature"].startswith("v1,")
    assert headers["content-type"] == "application/json"
    assert headers["user-agent"] == f"supportdesk-webhooks/{__version__}"


def test_a_body_altered_by_one_byte_is_refused() -> None:
    secret = new_webhook_secret()
    body = body_bytes(BODY)
    headers = signed_headers("evt_1", int(time.time()), body, [webhook_secret_bytes(secret)])

    altered = body[:-2] + b" " + body[-1:]

    with pytest.raises(WebhookVerificationError):
        Webhook(secret).verify(altered, headers)


def test_during_a_rotation_both_secrets_verify_and_a_stranger_does_not() -> None:
    old, new = new_webhook_secret(), new_webhook_secret()
    body = body_bytes(BODY)
    keys = [webhook_secret_bytes(new), webhook_secret_bytes(old)]

    headers = signed_headers("evt_1", int(time.time()), body, keys)

    assert len(headers["webhook-signature"].split(" ")) == 2
    Webhook(new).verify(body, headers)
    Webhook(old).verify(body, headers)
    with pytest.raises(WebhookVerificationError):
        Webhook(new_webhook_secret()).verify(body, headers)


def test_the_previous_secret_signs_only_while_its_window_is_open() -> None:
    box = SecretBox([new_server_key()])
    old, new = new_webhook_secret(), new_webhook_secret()
    at = now()

    def open_secret(sealed: str) -> bytes:
        return webhook_secret_bytes(box.open(sealed))

    during = signing_keys(open_secret, box.seal(new), box.seal(old), at + timedelta(seconds=1), at)
    after = signing_keys(open_secret, box.seal(new), box.seal(old), at, at)
    without = signing_keys(open_secret, box.seal(new), None, None, at)

    assert during == [webhook_secret_bytes(new), webhook_secret_bytes(old)]
    assert after == without == [webhook_secret_bytes(new)]
