"""Running the service: `supportdesk serve` (docs/deploy.md).

One process, or N worker processes sharing one port under a supervisor that restarts a
worker that dies. Each worker is stateless: the database holds the data and, with several
processes, Redis holds the rate limits. SIGTERM (or Ctrl-C) stops taking connections, lets
the requests in flight finish (each is bounded by the request time-out), then closes.
"""

from __future__ import annotations

import asyncio
import os

from supportdesk.config import Settings

# Beyond the request time-out: time to write the answer and close the pools.
SHUTDOWN_MARGIN_SECONDS = 5.0


def default_workers() -> int:
    """The cores this process may run on (a container's CPU set, not the host's)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def connections_per_worker(settings: Settings) -> int:
    """The most database connections one worker opens (db/database.py): on PostgreSQL its
    pool of SUPPORTDESK_DB_POOL_SIZE plus as many again in overflow; on SQLite that many
    readers and the one writer."""
    if settings.is_sqlite:
        return settings.db_pool_size + 1
    return 2 * settings.db_pool_size


async def _postgres_connection_limit(settings: Settings) -> int:
    """max_connections less the slots kept for superusers."""
    from sqlalchemy import text

    from supportdesk.db import Database

    db = Database(settings.database_url, pool_size=1)
    try:
        async with db.read() as connection:
            total = int(await connection.scalar(text("SHOW max_connections")))
            reserved = int(await connection.scalar(text("SHOW superuser_reserved_connections")))
    finally:
        await db.dispose()
    return total - reserved


def connection_budget_warning(settings: Settings, workers: int) -> str | None:
    """A warning when this machine's workers alone could exhaust PostgreSQL's connections."""
    if settings.is_sqlite:
        return None
    wanted = workers * connections_per_worker(settings)
    try:
        limit = asyncio.run(_postgres_connection_limit(settings))
    except Exception as error:  # the database's readiness is /readyz's business
        return f"Could not read PostgreSQL's max_connections ({type(error).__name__})."
    if wanted <= limit:
        return None
    return (
        f"{workers} workers x {connections_per_worker(settings)} connections = {wanted}, more"
        f" than PostgreSQL allows ({limit}): lower SUPPORTDESK_DB_POOL_SIZE or --workers, or"
        " raise max_connections (docs/deploy.md)."
    )


def serve(settings: Settings, host: str, port: int, workers: int) -> None:
    """Serve until SIGTERM or SIGINT; in-flight requests finish first."""
    import uvicorn

    from supportdesk.logs import logging_config

    uvicorn.run(
        "supportdesk.app:create_app",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        loop="uvloop",
        http="httptools",
        access_log=False,  # ours is supportdesk.access, one JSON line per request
        log_config=logging_config(json_lines=settings.log_json),
        timeout_graceful_shutdown=int(settings.request_timeout_seconds + SHUTDOWN_MARGIN_SECONDS),
    )
