"""/healthz says the process is up; /readyz says the database answers."""

from __future__ import annotations

import asyncio

import httpx

from supportdesk.app import create_app
from supportdesk.config import Settings
from tests.servers import RunningServer


def test_healthz_answers_ok_without_a_key(server: RunningServer) -> None:
    response = httpx.get(f"{server.base_url}/healthz", timeout=30)

    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_readyz_answers_ok_when_the_database_answers(server: RunningServer) -> None:
    response = httpx.get(f"{server.base_url}/readyz", timeout=30)

    assert response.status_code == 200
    assert response.json() == {"status": "ok", "checks": {"database": "ok"}}


def test_readyz_answers_503_when_the_database_is_unreachable() -> None:
    # Nothing listens on port 1: the database is away, the process is up.
    settings = Settings(database_url="postgresql://postgres@127.0.0.1:1/nowhere")
    app = create_app(settings)

    async def probe() -> tuple[httpx.Response, httpx.Response]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            return await client.get("/readyz"), await client.get("/healthz")

    ready, healthy = asyncio.run(probe())

    assert ready.status_code == 503
    assert ready.json() == {"status": "unavailable", "checks": {"database": "unavailable"}}
    assert healthy.status_code == 200
