"""Rate limits (docs/http-and-limits.md): per API key, and for failed authentications
per client address.

Each limit is a token bucket that holds `limit` tokens and is refilled in full once its
minute has run (the minute starts with the first request after a refill). So no caller
gets more than `limit` requests through in the minute after its first one, and
`X-RateLimit-Reset` is exactly the moment of the next refill.

Two backends keep the same semantics: one in this process (the embedded default) and one in
Redis, shared by every process, where a Lua script makes each take atomic and the clock is
Redis's own.
"""

from __future__ import annotations

import logging
import math
import time
from dataclasses import dataclass
from typing import Any, Protocol

from redis.asyncio import Redis
from redis.exceptions import RedisError

logger = logging.getLogger("supportdesk.http")

PERIOD_SECONDS = 60


@dataclass(frozen=True, slots=True)
class Verdict:
    allowed: bool
    limit: int
    remaining: int
    reset_at: float  # epoch seconds of the next refill
    now: float

    @property
    def retry_after(self) -> int:
        """Whole seconds until the next refill (at least 1)."""
        return max(1, math.ceil(self.reset_at - self.now))

    def headers(self) -> dict[str, str]:
        headers = {
            "X-RateLimit-Limit": str(self.limit),
            "X-RateLimit-Remaining": str(self.remaining),
            "X-RateLimit-Reset": str(math.ceil(self.reset_at)),
        }
        if not self.allowed:
            headers["Retry-After"] = str(self.retry_after)
        return headers


class RateLimiter(Protocol):
    async def take(self, bucket: str, limit: int) -> Verdict:
        """Take one token from `bucket` (created full with `limit` tokens)."""
        ...

    async def ping(self) -> bool:
        """Whether the shared store answers (always true in this process's memory)."""
        ...

    async def close(self) -> None: ...


class InProcessRateLimiter:
    """Buckets in this process's memory; enough for one process (the embedded default)."""

    MAX_BUCKETS = 100_000

    def __init__(self) -> None:
        # bucket -> (tokens left, epoch seconds of the next refill)
        self._buckets: dict[str, tuple[int, float]] = {}

    async def take(self, bucket: str, limit: int) -> Verdict:
        now = time.time()
        tokens, refill_at = self._buckets.get(bucket, (limit, 0.0))
        if now >= refill_at:
            tokens, refill_at = limit, now + PERIOD_SECONDS
        allowed = tokens > 0
        tokens -= allowed
        self._buckets[bucket] = (tokens, refill_at)
        if len(self._buckets) > self.MAX_BUCKETS:
            self._forget_refilled(now)
        return Verdict(allowed, limit, tokens, refill_at, now)

    def _forget_refilled(self, now: float) -> None:
        """Buckets whose minute has run would start full anyway: drop them."""
        self._buckets = {k: v for k, v in self._buckets.items() if v[1] > now}

    async def ping(self) -> bool:
        return True

    async def close(self) -> None:
        self._buckets.clear()


# KEYS[1] the bucket; ARGV[1] its size; ARGV[2] the period in milliseconds.
# Returns {allowed (0|1), tokens left, refill time (ms since the epoch), now (ms)}.
_TAKE = """
local now = redis.call('TIME')
local now_ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local limit = tonumber(ARGV[1])
local state = redis.call('HMGET', KEYS[1], 'tokens', 'refill_at')
local tokens = tonumber(state[1])
local refill_at = tonumber(state[2])
if tokens == nil or refill_at == nil or now_ms >= refill_at then
  tokens = limit
  refill_at = now_ms + tonumber(ARGV[2])
end
local allowed = 0
if tokens > 0 then
  tokens = tokens - 1
  allowed = 1
end
redis.call('HSET', KEYS[1], 'tokens', tokens, 'refill_at', refill_at)
redis.call('PEXPIREAT', KEYS[1], refill_at)
return {allowed, tokens, refill_at, now_ms}
"""


class RedisRateLimiter:
    """Buckets in Redis, shared by every process. While Redis is unreachable, each process
    limits on its own (logged), rather than refusing or letting everything through; after a
    failure Redis is left alone for a few seconds, so that requests do not each wait on it."""

    RETRY_AFTER_FAILURE_SECONDS = 5.0

    def __init__(self, url: str, prefix: str) -> None:
        self.redis: Redis = Redis.from_url(url, socket_timeout=1, socket_connect_timeout=1)
        self.prefix = prefix
        self._script: Any = self.redis.register_script(_TAKE)
        self._fallback = InProcessRateLimiter()
        self._last_warning = 0.0
        self._redis_again_at = 0.0

    async def take(self, bucket: str, limit: int) -> Verdict:
        if time.monotonic() < self._redis_again_at:
            return await self._fallback.take(bucket, limit)
        try:
            allowed, tokens, refill_at_ms, now_ms = await self._script(
                keys=[f"{self.prefix}:{bucket}"], args=[limit, PERIOD_SECONDS * 1000]
            )
        except (RedisError, OSError) as error:
            self._redis_again_at = time.monotonic() + self.RETRY_AFTER_FAILURE_SECONDS
            self._warn(error)
            return await self._fallback.take(bucket, limit)
        return Verdict(bool(allowed), limit, int(tokens), refill_at_ms / 1000, now_ms / 1000)

    def _warn(self, error: Exception) -> None:
        now = time.monotonic()
        if now - self._last_warning >= PERIOD_SECONDS:
            self._last_warning = now
            logger.warning(
                "Redis is unreachable; rate limits are per process until it is back",
                extra={"fields": {"error": repr(error)}},
            )

    async def ping(self) -> bool:
        try:
            return bool(await self.redis.ping())
        except (RedisError, OSError):
            return False

    async def close(self) -> None:
        await self.redis.aclose()


def rate_limiter(redis_url: str | None, prefix: str) -> RateLimiter:
    """Redis when a URL is configured (several processes), this process's memory otherwise."""
    if redis_url:
        return RedisRateLimiter(redis_url, prefix)
    return InProcessRateLimiter()
