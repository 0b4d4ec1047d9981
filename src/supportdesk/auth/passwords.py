"""Org admin passwords: Argon2id, the memory-hard hash."""

from __future__ import annotations

import functools
import os

from argon2 import PasswordHasher, profiles
from argon2.exceptions import InvalidHashError, VerificationError

# The test suite (never a deployment) sets this: Argon2id with the library's cheapest
# parameters, so its hundreds of logins and workspaces take milliseconds, not minutes.
FAST_TEST_HASHES = os.environ.get("SUPPORTDESK_TEST_FAST_PASSWORD_HASHES") == "1"

# Argon2id with the library's recommended parameters (RFC 9106, low memory).
_hasher = (
    PasswordHasher.from_parameters(profiles.CHEAPEST) if FAST_TEST_HASHES else PasswordHasher()
)


@functools.cache
def _dummy_hash() -> str:
    """Verified against when an e-mail is unknown, so a miss costs as much time as a wrong
    password. Made when first needed: hashing costs every command and worker start 0.15 s."""
    return _hasher.hash("supportdesk-timing-equaliser")


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def verify_password(password_hash: str | None, password: str) -> bool:
    try:
        return (
            _hasher.verify(password_hash or _dummy_hash(), password) and password_hash is not None
        )
    except (VerificationError, InvalidHashError):
        return False
