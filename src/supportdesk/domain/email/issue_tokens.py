"""The signed issue token of a reply address (`support+t42-k3j…@acme.test`): mail sent to
it joins issue 42, whatever its headers say. Signed with a key derived from the server's,
so nobody can write to an issue by guessing its number; lowercase, as some mail systems
fold the local part's case."""

from __future__ import annotations

import base64
import hashlib
import hmac
import re

# The purpose the signing key is derived for (auth/key_derivation.py).
PURPOSE = "supportdesk mail threads"
_SIGNATURE_LENGTH = 16
_SHAPE = re.compile(r"\At(\d{1,9})-([a-z2-7]{16})\Z")


def _signature(key: bytes, workspace_id: str, issue_id: str) -> str:
    digest = hmac.new(key, f"{workspace_id}:{issue_id}".encode(), hashlib.sha256).digest()
    return base64.b32encode(digest).decode("ascii").lower()[:_SIGNATURE_LENGTH]


def issue_token(key: bytes, workspace_id: str, issue_id: str, ticket_number: int) -> str:
    """The plus part that routes mail to this issue."""
    return f"t{ticket_number}-{_signature(key, workspace_id, issue_id)}"


def ticket_number_of(token: str) -> tuple[int, str] | None:
    """The ticket number a token names and its signature, before it is checked."""
    found = _SHAPE.match(token.strip().lower())
    return (int(found.group(1)), found.group(2)) if found else None


def is_signed(key: bytes, workspace_id: str, issue_id: str, signature: str) -> bool:
    return hmac.compare_digest(_signature(key, workspace_id, issue_id), signature)
