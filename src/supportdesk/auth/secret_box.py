"""Webhook signing secrets, encrypted at rest (docs/webhooks.md).

A webhook secret must be read back to sign each delivery, so unlike an API key it cannot be
stored as a digest. It is sealed with Fernet (AES-CBC + HMAC) under a key derived from the
server's key, which lives outside the database: a copy of the database alone opens nothing.
Several server keys may be configured: the first seals, every one opens, so a new key can be
put first while secrets sealed under the old one still open.
"""

from __future__ import annotations

import base64
import binascii
import secrets
from collections.abc import Sequence

from cryptography.fernet import Fernet, InvalidToken, MultiFernet

from supportdesk.auth.key_derivation import derive

# The purpose this key is derived for: knowing it tells nothing of the cookie or cursor keys.
PURPOSE = "supportdesk webhook secrets"
WEBHOOK_SECRET_PREFIX = "whsec_"  # noqa: S105 (a prefix, not a secret)
_RANDOM_BYTES = 32


class SecretBoxError(Exception):
    """A secret that none of the configured server keys opens, or no key to seal with."""


class SecretBox:
    """Seals and opens short secrets under the server's keys: the first seals, all open."""

    def __init__(self, server_keys: Sequence[str]) -> None:
        if not server_keys or not all(server_keys):
            raise SecretBoxError("a secret box needs at least one non-empty server key")
        self._fernet = MultiFernet([Fernet(_fernet_key(key)) for key in server_keys])

    def seal(self, plaintext: str) -> str:
        """The plaintext encrypted and authenticated, as URL-safe text to store."""
        return self._fernet.encrypt(plaintext.encode()).decode("ascii")

    def open(self, token: str) -> str:
        """The plaintext of a sealed token, or SecretBoxError when no key opens it."""
        try:
            return self._fernet.decrypt(token).decode()
        except (InvalidToken, ValueError):  # ValueError: text that is not even ASCII
            raise SecretBoxError(
                "no configured server key opens this secret (was SUPPORTDESK_SECRET_KEY changed "
                "without keeping the previous key after it?)"
            ) from None


def _fernet_key(server_key: str) -> bytes:
    # Derived, not used as is: any configured string works, and this key is for this use only.
    return base64.urlsafe_b64encode(derive(server_key, PURPOSE))


def parse_server_keys(configured: str) -> list[str]:
    """SUPPORTDESK_SECRET_KEY's keys: comma-separated, the first one seals."""
    return [key.strip() for key in configured.split(",") if key.strip()]


def new_server_key() -> str:
    """A fresh server key: 32 random bytes in URL-safe base64 (`supportdesk secret-key`)."""
    return secrets.token_urlsafe(_RANDOM_BYTES)


def new_webhook_secret() -> str:
    """`whsec_` + standard base64 of 32 random bytes, the Standard Webhooks secret format."""
    return WEBHOOK_SECRET_PREFIX + base64.b64encode(secrets.token_bytes(_RANDOM_BYTES)).decode()


def webhook_secret_bytes(secret: str) -> bytes:
    """The HMAC key of a webhook secret: the bytes its base64 part encodes."""
    if not secret.startswith(WEBHOOK_SECRET_PREFIX):
        raise ValueError(f"a webhook secret starts with {WEBHOOK_SECRET_PREFIX}")
    try:
        key = base64.b64decode(secret.removeprefix(WEBHOOK_SECRET_PREFIX), validate=True)
    except binascii.Error:
        raise ValueError("a webhook secret is base64 after its prefix") from None
    if not key:
        raise ValueError("a webhook secret may not be empty")
    return key
