"""When a failed delivery is tried again (docs/webhooks.md).

After failed attempt n (1-based) the delivery waits `schedule[n-1]` seconds, give or take
10% so that deliveries that failed together (an endpoint down for a minute) do not all come
back in the same instant; after the last entry it has failed for good. A receiver that is
overloaded may ask for longer with `Retry-After` on 429 or 503: a longer wait is honoured,
up to a day, never a shorter one (the schedule already protects the receiver).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

JITTER = 0.10
MAX_RETRY_AFTER_SECONDS = 24 * 3600.0
RETRY_AFTER_STATUSES = frozenset({429, 503})


def scheduled_wait(
    attempt: int, schedule: Sequence[float], rng: random.Random | None = None
) -> float | None:
    """Seconds to wait after failed attempt `attempt` (1-based), with jitter; None when the
    schedule is used up and the delivery has failed."""
    if attempt < 1:
        raise ValueError("attempts are counted from 1")
    if attempt > len(schedule):
        return None
    spread = (rng or random).uniform(1 - JITTER, 1 + JITTER)
    return schedule[attempt - 1] * spread


def retry_after_seconds(value: str | None, at: datetime) -> float | None:
    """A `Retry-After` header's wait in seconds (delay-seconds or an HTTP-date), capped at a
    day; None when absent or unreadable."""
    if value is None or not value.strip():
        return None
    text = value.strip()
    if text.isascii() and text.isdigit():
        seconds = float(text)
    else:
        try:
            moment = parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError):
            return None
        if moment.tzinfo is None:  # "-0000" dates: RFC 9110 dates are in GMT
            moment = moment.replace(tzinfo=UTC)
        seconds = (moment - at).total_seconds()
    return min(max(seconds, 0.0), MAX_RETRY_AFTER_SECONDS)


def next_wait(
    attempt: int,
    schedule: Sequence[float],
    status: int | None,
    retry_after: str | None,
    at: datetime,
    rng: random.Random | None = None,
) -> float | None:
    """Seconds until the next attempt after failed attempt `attempt`, or None when the
    delivery has failed: the schedule's wait, or a longer `Retry-After` on 429/503."""
    wait = scheduled_wait(attempt, schedule, rng)
    if wait is None or status not in RETRY_AFTER_STATUSES:
        return wait
    asked = retry_after_seconds(retry_after, at)
    return max(wait, asked) if asked is not None else wait
