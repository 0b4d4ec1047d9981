"""At most so many open streams per key; the next is refused (429).

With Redis the count is shared by every process: each open stream holds a lease in a
sorted set per key (member: the stream, score: when its lease ends), which its process
renews while the stream is open. A process killed without closing its streams stops
renewing, and their leases lapse within LEASE_SECONDS. Without Redis, or while it is
unreachable, each process counts its own streams."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
import time
from dataclasses import dataclass
from typing import Any, Protocol

from redis.asyncio import Redis
from redis.exceptions import RedisError

logger = logging.getLogger("supportdesk.live")

# How long a stream's lease lasts unless renewed, and how often a process renews its own:
# a killed process's streams stop counting within LEASE_SECONDS.
LEASE_SECONDS = 10.0
RENEW_SECONDS = 3.0


@dataclass(frozen=True, slots=True)
class Lease:
    """One open stream's place in its key's count."""

    key_id: str
    member: str
    shared: bool  # counted in Redis, not in this process only


class StreamSlots(Protocol):
    per_key: int

    async def take(self, key_id: str) -> Lease | None:
        """A lease for one stream more of the key, or None when it has all it may."""

    def give_back(self, lease: Lease) -> None:
        """The stream closed (without waiting: it may be called while cancelled)."""

    async def start(self) -> None: ...

    async def close(self) -> None: ...


class ProcessSlots:
    """This process's own streams per key."""

    def __init__(self, per_key: int) -> None:
        self.per_key = per_key
        self._open: dict[str, int] = {}
        self._numbers = itertools.count()

    async def take(self, key_id: str) -> Lease | None:
        return self.take_now(key_id)

    def take_now(self, key_id: str) -> Lease | None:
        count = self._open.get(key_id, 0)
        if count >= self.per_key:
            return None
        self._open[key_id] = count + 1
        return Lease(key_id, str(next(self._numbers)), shared=False)

    def give_back(self, lease: Lease) -> None:
        count = self._open.pop(lease.key_id, 0) - 1
        if count > 0:
            self._open[lease.key_id] = count

    async def start(self) -> None:
        pass

    async def close(self) -> None:
        pass


# KEYS[1] the key's leases; ARGV[1] the limit, ARGV[2] the lease in ms, ARGV[3] the member.
# Lapsed leases are dropped first; Redis's clock decides, so processes' clocks need not agree.
_TAKE = """
local now = redis.call('TIME')
local now_ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now_ms)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then
  return 0
end
redis.call('ZADD', KEYS[1], now_ms + tonumber(ARGV[2]), ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
"""

# KEYS: each lease's set; ARGV[1] the lease in ms, ARGV[i + 1] the member of KEYS[i].
# XX: a lease given back meanwhile is not brought back.
_RENEW = """
local now = redis.call('TIME')
local until_ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000) + tonumber(ARGV[1])
for i, key in ipairs(KEYS) do
  redis.call('ZADD', key, 'XX', until_ms, ARGV[i + 1])
  redis.call('PEXPIRE', key, ARGV[1])
end
return #KEYS
"""


class RedisSlots:
    """Every process's streams per key, counted in Redis; this process's own count while
    Redis does not answer (logged)."""

    def __init__(self, url: str, prefix: str, per_key: int) -> None:
        self.per_key = per_key
        self._redis: Redis = Redis.from_url(url, socket_timeout=1, socket_connect_timeout=1)
        self._prefix = f"{prefix}:streams"
        self._take: Any = self._redis.register_script(_TAKE)
        self._renew: Any = self._redis.register_script(_RENEW)
        self._fallback = ProcessSlots(per_key)
        self._process = f"{os.getpid()}-{os.urandom(4).hex()}"
        self._numbers = itertools.count()
        self._held: set[Lease] = set()
        self._pending: set[asyncio.Task[None]] = set()
        self._renewing: asyncio.Task[None] | None = None
        self._last_warning = 0.0

    def _set_of(self, key_id: str) -> str:
        return f"{self._prefix}:{key_id}"

    async def take(self, key_id: str) -> Lease | None:
        lease = Lease(key_id, f"{self._process}-{next(self._numbers)}", shared=True)
        try:
            taken = await self._take(
                keys=[self._set_of(key_id)],
                args=[self.per_key, int(LEASE_SECONDS * 1000), lease.member],
            )
        except (RedisError, OSError) as error:
            self._warn(error)
            return self._fallback.take_now(key_id)
        if not taken:
            return None
        self._held.add(lease)
        return lease

    def give_back(self, lease: Lease) -> None:
        if not lease.shared:
            self._fallback.give_back(lease)
            return
        self._held.discard(lease)
        task = asyncio.create_task(self._forget(lease))
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def _forget(self, lease: Lease) -> None:
        try:
            await self._redis.zrem(self._set_of(lease.key_id), lease.member)
        except (RedisError, OSError) as error:
            self._warn(error)  # the lease lapses by itself

    async def start(self) -> None:
        self._renewing = asyncio.create_task(self._renew_while_open())

    async def _renew_while_open(self) -> None:
        while True:
            await asyncio.sleep(RENEW_SECONDS)
            held = list(self._held)
            if not held:
                continue
            try:
                await self._renew(
                    keys=[self._set_of(lease.key_id) for lease in held],
                    args=[int(LEASE_SECONDS * 1000), *(lease.member for lease in held)],
                )
            except (RedisError, OSError) as error:
                self._warn(error)

    def _warn(self, error: Exception) -> None:
        now = time.monotonic()
        if now - self._last_warning >= 60:
            self._last_warning = now
            logger.warning(
                "Redis is unreachable; open event streams are counted per process",
                extra={"fields": {"error": repr(error)}},
            )

    async def close(self) -> None:
        if self._renewing is not None:
            self._renewing.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._renewing
        if self._pending:
            await asyncio.wait(self._pending, timeout=1)
        await self._redis.aclose()


def stream_slots(redis_url: str | None, prefix: str, per_key: int) -> StreamSlots:
    """Shared through Redis when it is configured, this process's own otherwise."""
    if redis_url:
        return RedisSlots(redis_url, prefix, per_key)
    return ProcessSlots(per_key)
