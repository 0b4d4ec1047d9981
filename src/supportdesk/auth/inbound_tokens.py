"""The inbound token of a mailbox (docs/email.md): what a provider that forwards raw mail
to `POST /v1/inbound-email` sends as its Bearer.

`mbt_` + 32 random base62 characters + a 6-character base62 CRC32 of what comes before,
as API keys are made (auth/keys.py): a mistyped token is refused before any lookup, and
only its SHA-256 is stored."""

from __future__ import annotations

import re
import secrets

from supportdesk.auth.keys import BASE62, checksum, hash_secret

PREFIX = "mbt_"
TOKEN_PREFIX_LENGTH = 12
_SHAPE = re.compile(r"\Ambt_([0-9A-Za-z]{32})([0-9A-Za-z]{6})\Z")


def new_inbound_token() -> str:
    body = PREFIX + "".join(secrets.choice(BASE62) for _ in range(32))
    return body + checksum(body)


def is_wellformed(token: str) -> bool:
    match = _SHAPE.match(token)
    return match is not None and secrets.compare_digest(
        checksum(PREFIX + match.group(1)), match.group(2)
    )


__all__ = ["PREFIX", "TOKEN_PREFIX_LENGTH", "hash_secret", "is_wellformed", "new_inbound_token"]
