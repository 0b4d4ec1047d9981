"""The API key secret format (docs/security.md).

`svc_mk_` (or legacy `svc_live_`) + 32 random base62 characters + a 6-character base62
CRC32 of everything before it. The checksum lets a request with a mistyped or made-up key
be refused before any database work, and lets secret scanners recognise our keys offline.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import zlib
from typing import Literal

BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
STANDARD_PREFIX = "svc_mk_"
LEGACY_PREFIX = "svc_live_"
RANDOM_LENGTH = 32
KEY_PREFIX_LENGTH = 12

KeyKind = Literal["standard", "legacy"]

_SECRET_SHAPE = re.compile(r"\A(svc_mk_|svc_live_)([0-9A-Za-z]{32})([0-9A-Za-z]{6})\Z")


# Every pair of base62 digits, by the number below 62² it writes: a CRC32 (below 62⁶) is
# three pairs, and every request's key is checked with one.
_PAIRS = [high + low for high in BASE62 for low in BASE62]
_PAIR = len(_PAIRS)


def checksum(text: str) -> str:
    """The CRC32 of `text` in base62, left-padded with 0 to six digits."""
    crc = zlib.crc32(text.encode())
    return _PAIRS[crc // (_PAIR * _PAIR)] + _PAIRS[crc // _PAIR % _PAIR] + _PAIRS[crc % _PAIR]


def generate_secret(kind: KeyKind = "standard") -> str:
    prefix = STANDARD_PREFIX if kind == "standard" else LEGACY_PREFIX
    body = prefix + "".join(secrets.choice(BASE62) for _ in range(RANDOM_LENGTH))
    return body + checksum(body)


def kind_of_wellformed(secret: str) -> KeyKind | None:
    """The key's kind when the secret has our shape and a valid checksum, else None."""
    match = _SECRET_SHAPE.match(secret)
    if match is None:
        return None
    prefix, random_part, check = match.groups()
    if not secrets.compare_digest(checksum(prefix + random_part), check):
        return None
    return "standard" if prefix == STANDARD_PREFIX else "legacy"


def hash_secret(secret: str) -> str:
    """The only form of a secret we store: its SHA-256, hex."""
    return hashlib.sha256(secret.encode()).hexdigest()


def key_prefix(secret: str) -> str:
    return secret[:KEY_PREFIX_LENGTH]
