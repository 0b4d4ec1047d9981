"""Opaque, typed, time-sortable identifiers: `iss_01JD…` (a prefix and a ULID).

Identifiers made from the same instant as the row's `created_at` sort exactly as
(created_at, id), so one index on the id serves keyset pagination.
"""

from __future__ import annotations

import os
import re
import threading
from datetime import datetime

CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
PREFIXES = {
    "Workspace": "ws",
    "Member": "mem",
    "MachineUser": "mu",
    "ApiKey": "key",
    "AuditEvent": "aud",
    "Issue": "iss",
    "Message": "msg",
    "Contact": "ct",
    "Account": "acc",
    "Article": "art",
    "Event": "evt",
    "WebhookEndpoint": "whk",
    "WebhookDelivery": "whd",
    "Label": "lbl",
    "Attachment": "att",
    "SavedView": "sv",
    "Mailbox": "mbx",
    "InboundEmail": "inm",
    "OutboundEmail": "eml",
}
TYPES_BY_PREFIX = {prefix: type_name for type_name, prefix in PREFIXES.items()}
_SHAPE = re.compile(r"\A([a-z]{2,4})_([0-9A-HJKMNP-TV-Z]{26})\Z")

_lock = threading.Lock()
# The latest random part given out in each recent millisecond. Not only the newest one: a
# batch writes ids for the moment it started while other requests may take later ones.
_latest: dict[int, int] = {}
_REMEMBERED = 4096


# Every pair of Crockford digits, by the 10 bits it writes: a ULID is 13 pairs, read off
# its 130 bits ten at a time (half the time of a divmod per digit; every write makes ids).
_PAIRS = [high + low for high in CROCKFORD for low in CROCKFORD]
_PAIR_SHIFTS = tuple(range(120, -1, -10))


def _encode(number: int) -> str:
    return "".join([_PAIRS[(number >> shift) & 1023] for shift in _PAIR_SHIFTS])


def _next_ulid(milliseconds: int) -> int:
    """Random within a millisecond, but increasing for ids made for the same one here,
    whatever ids for other moments were made in between."""
    with _lock:
        last_random = _latest.pop(milliseconds, None)
        if last_random is None:
            random_part = int.from_bytes(os.urandom(10), "big") >> 1
            if len(_latest) >= _REMEMBERED:
                del _latest[next(iter(_latest))]  # the least recently used
        else:
            random_part = last_random + 1
        _latest[milliseconds] = random_part
    return (milliseconds << 80) | random_part


def new_id(type_name: str, at: datetime) -> str:
    milliseconds = int(at.timestamp() * 1000)
    return f"{PREFIXES[type_name]}_{_encode(_next_ulid(milliseconds))}"


def first_id_at(type_name: str, at: datetime) -> str:
    """The least id of this type made at `at` or later: every one made earlier (in an
    earlier millisecond) sorts below it."""
    return f"{PREFIXES[type_name]}_{_encode(int(at.timestamp() * 1000) << 80)}"


def type_of(identifier: str) -> str | None:
    """The type an id names, or None when it is not one of ours."""
    match = _SHAPE.match(identifier)
    return TYPES_BY_PREFIX.get(match.group(1)) if match else None


def is_id_of(identifier: str, type_name: str) -> bool:
    return type_of(identifier) == type_name
