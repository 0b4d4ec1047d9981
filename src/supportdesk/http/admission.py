"""Who may ask, and how often (docs/http-and-limits.md): the bearer key, the key's rate limit,
and the limit on failed authentications per client address."""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import NamedTuple

from starlette.requests import HTTPConnection, Request

from supportdesk.auth.authenticate import (
    LAST_USED_RESOLUTION,
    AuthenticationFailed,
    KnownKeys,
    authenticate,
    bearer_hash,
    needs_last_used_write,
    record_last_used,
)
from supportdesk.auth.principal import Principal
from supportdesk.config import Settings
from supportdesk.db import Database
from supportdesk.domain.clock import now
from supportdesk.http.access_log import AccessRecord, access_record
from supportdesk.http.rate_limit import RateLimiter, Verdict
from supportdesk.http.requests import HttpProblem


class Bearer(NamedTuple):
    """The request's key as its Authorization header gives it, read once: the hash of its
    secret, or why there is none."""

    secret_hash: str | None
    failure: AuthenticationFailed | None

    @classmethod
    def of(cls, request: Request) -> Bearer:
        return cls.given(request.headers.getlist("authorization"))

    @classmethod
    def given(cls, authorization: list[str]) -> Bearer:
        """From the values of `Authorization` wherever they came (a WebSocket's
        `connection_init`)."""
        try:
            return cls(bearer_hash(authorization), None)
        except AuthenticationFailed as failure:
            return cls(None, failure)


class Remembered(NamedTuple):
    """A request's key that this process has authenticated before, and the token taken."""

    secret_hash: str
    principal: Principal
    last_used_at: datetime | None
    verdict: Verdict


# The WWW-Authenticate of a refused key (GraphQL and /v1 alike).
CHALLENGE = "Bearer"

# Past this many keys with a lastUsedAt write scheduled, those older than a minute are dropped.
_SCHEDULED_PRUNE_AT = 10_000


class Admission:
    def __init__(self, settings: Settings, limiter: RateLimiter) -> None:
        self.settings = settings
        self.limiter = limiter
        self._background: set[asyncio.Task[None]] = set()
        self._last_used_scheduled: dict[str, datetime] = {}
        self.known = KnownKeys()

    async def admit(self, request: Request) -> tuple[Principal, dict[str, str]]:
        """The caller's principal and the rate-limit headers for every answer from here on;
        raises HttpProblem (401, 429) otherwise."""
        principal = await self.authenticate(request, Bearer.of(request))
        return principal, self.allowed(request, principal, await self.spend(principal))

    def allowed(
        self, request: HTTPConnection, principal: Principal, verdict: Verdict
    ) -> dict[str, str]:
        """The rate-limit headers of an authenticated key whose token is `verdict`; raises
        HttpProblem (429) when it was refused."""
        record = access_record(request.scope)
        record.key_prefix = principal.key_prefix
        record.workspace = principal.workspace_id
        return self._verdict(verdict, record)

    async def admit_known(self, bearer: Bearer) -> Remembered | None:
        """For a key this process has authenticated before: its principal, not yet known to
        be still active (the request's statements must check that, or `admit` the request),
        and its token of the rate limit. None for any other key."""
        if bearer.secret_hash is None:
            return None
        found = self.known.get(bearer.secret_hash)
        if found is None:
            return None
        principal, last_used_at = found
        return Remembered(bearer.secret_hash, principal, last_used_at, await self.spend(principal))

    def forget(self, bearer: Bearer) -> None:
        """The key was found revoked or expired (or gone): looked up at its next use."""
        if bearer.secret_hash is not None:
            self.known.forget(bearer.secret_hash)

    def admitted(self, request: Request, remembered: Remembered) -> dict[str, str]:
        """The rate-limit headers of a remembered key whose statements found it active."""
        principal = remembered.principal
        request.state.principal = principal
        headers = self.allowed(request, principal, remembered.verdict)
        self._note_use(request.app.state.db, principal, remembered.last_used_at, now())
        return headers

    async def authenticate(self, request: HTTPConnection, bearer: Bearer) -> Principal:
        """The principal of the request's key, looked up; raises HttpProblem (401, or 429
        past the failed authentications of its address)."""
        db: Database = request.app.state.db
        moment = now()
        try:
            if bearer.failure is not None:
                raise bearer.failure
            assert bearer.secret_hash is not None
            principal, last_used_at = await authenticate(db, bearer.secret_hash, moment, self.known)
        except AuthenticationFailed as failure:
            if bearer.secret_hash is not None:
                self.known.forget(bearer.secret_hash)
            await self._count_failure(request)
            raise HttpProblem(
                401,
                "UNAUTHENTICATED",
                str(failure),
                {"WWW-Authenticate": CHALLENGE},
                reason=failure.reason,
            ) from None
        self._note_use(db, principal, last_used_at, moment)
        request.state.principal = principal
        return principal

    def _note_use(
        self, db: Database, principal: Principal, last_used_at: datetime | None, moment: datetime
    ) -> None:
        """`lastUsedAt`, written after the answer and at most once a minute per key."""
        if needs_last_used_write(last_used_at, moment) and needs_last_used_write(
            self._last_used_scheduled.get(principal.key_id), moment
        ):
            self._remember_scheduled(principal.key_id, moment)
            task = asyncio.create_task(record_last_used(db, principal, moment))
            self._background.add(task)
            task.add_done_callback(self._background.discard)

    def _remember_scheduled(self, key_id: str, moment: datetime) -> None:
        """Entries older than the write resolution no longer hold anything back, so they
        are dropped once the map grows: memory stays bounded by the keys of one minute."""
        if len(self._last_used_scheduled) >= _SCHEDULED_PRUNE_AT:
            cutoff = moment - LAST_USED_RESOLUTION
            self._last_used_scheduled = {
                key: at for key, at in self._last_used_scheduled.items() if at > cutoff
            }
        self._last_used_scheduled[key_id] = moment

    async def note_failed_authentication(self, request: HTTPConnection) -> None:
        """A credential of another kind (a mailbox's inbound token) was refused: it counts
        against the address as a key's would; HttpProblem (429) past the limit."""
        await self._count_failure(request)

    async def _count_failure(self, request: HTTPConnection) -> None:
        """Failed authentications count against the client's address; past the limit they
        are answered 429, so guessing is slow. Valid keys never wait on this."""
        address = request.client.host if request.client else "unknown"
        limit = self.settings.failed_auth_per_minute
        verdict = await self.limiter.take(f"auth-failures:{address}", limit)
        if not verdict.allowed:
            access_record(request.scope).rate_limited_by = "failed_auth"
            raise HttpProblem(
                429,
                "RATE_LIMITED",
                f"Too many failed authentications from this address (limit {limit} a minute);"
                f" retry in {verdict.retry_after} s.",
                {"Retry-After": str(verdict.retry_after)},
                retryAfter=verdict.retry_after,
            )

    async def spend(self, principal: Principal) -> Verdict:
        """One token of the key's rate limit."""
        return await self.limiter.take(
            f"key:{principal.key_id}", self.settings.rate_limit_per_minute
        )

    def _verdict(self, verdict: Verdict, record: AccessRecord) -> dict[str, str]:
        """The rate-limit headers of an allowed request; raises HttpProblem (429) otherwise."""
        limit = verdict.limit
        if not verdict.allowed:
            record.rate_limited_by = "key"
            raise HttpProblem(
                429,
                "RATE_LIMITED",
                f"This key's rate limit of {limit} requests a minute is spent;"
                f" retry in {verdict.retry_after} s.",
                verdict.headers(),
                retryAfter=verdict.retry_after,
            )
        return verdict.headers()
