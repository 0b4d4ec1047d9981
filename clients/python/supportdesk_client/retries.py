"""When a refused call is sent again (docs/http-and-limits.md)."""

from __future__ import annotations

from dataclasses import dataclass

import httpx

from .answers import retry_after

# 429: the key's rate limit refused the request before it ran. 503: the server is
# overloaded or the request ran out of time (TIMEOUT).
RETRIED_STATUSES = frozenset({429, 503})


@dataclass(frozen=True)
class RetryPolicy:
    """`max_retries` more attempts at most, each after the answer's `Retry-After` (or
    `backoff` seconds, doubling, when it names none); a wait longer than `max_wait`
    seconds is not made: the call raises at once (RateLimited for a 429)."""

    max_retries: int = 3
    max_wait: float = 30.0
    backoff: float = 0.5

    def delay(self, response: httpx.Response, attempt: int, *, repeatable: bool) -> float | None:
        """Seconds to wait before attempt `attempt + 1`, or None to give the answer up.

        A 503 may come after a mutation ran: only `repeatable` requests (queries, and
        `createIssue` with its idempotency key) are sent again after one."""
        if response.status_code not in RETRIED_STATUSES or attempt >= self.max_retries:
            return None
        if response.status_code == 503 and not repeatable:
            return None
        wait = retry_after(response)
        if wait is None:
            wait = self.backoff * 2**attempt
        return wait if wait <= self.max_wait else None
