"""Liveness and readiness.

`/healthz` says the process answers. `/readyz` says it can serve: the database answers;
otherwise 503, so a load balancer sends traffic elsewhere. Redis, when configured, is checked
and reported, but its outage leaves the process ready ("degraded"): every process shares it,
so a 503 would take them all out of the pool while each still serves, its rate limits and
live signals falling back to its own.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable

from starlette.requests import Request
from starlette.responses import JSONResponse

# A check that has not answered by then counts as failed: a load balancer's probe must not
# hang on a database that drops packets.
CHECK_TIMEOUT_SECONDS = 2.0


async def _passes(check: Awaitable[bool]) -> bool:
    try:
        return await asyncio.wait_for(check, CHECK_TIMEOUT_SECONDS)
    except TimeoutError:
        return False


async def healthz(request: Request) -> JSONResponse:
    return JSONResponse({"status": "ok"})


async def readyz(request: Request) -> JSONResponse:
    state = request.app.state
    checks = {"database": await _passes(state.db.ping())}
    if state.settings.redis_url:
        checks["redis"] = await _passes(state.limiter.ping())
    ready = checks["database"]
    status = "unavailable" if not ready else "ok" if all(checks.values()) else "degraded"
    return JSONResponse(
        {
            "status": status,
            "checks": {name: "ok" if ok else "unavailable" for name, ok in checks.items()},
        },
        status_code=200 if ready else 503,
    )
