"""Liveness and readiness."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse


async def healthz(request: Request) -> JSONResponse:
    return JSONResponse({"status": "ok"})


async def readyz(request: Request) -> JSONResponse:
    database_ok = await request.app.state.db.ping()
    checks = {"database": "ok" if database_ok else "unavailable"}
    return JSONResponse(
        {"status": "ok" if database_ok else "unavailable", "checks": checks},
        status_code=200 if database_ok else 503,
    )
