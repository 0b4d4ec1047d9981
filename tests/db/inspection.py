"""Looking at a database as it stands, for the migration tests."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, TypeVar

from sqlalchemy.ext.asyncio import create_async_engine

T = TypeVar("T")


def inspected(url: str, look: Callable[[Any], T]) -> T:
    """`look(connection)` run on a plain (synchronous) connection to the database at `url`,
    e.g. with `sqlalchemy.inspect`."""

    async def run() -> T:
        engine = create_async_engine(url)
        try:
            async with engine.connect() as connection:
                return await connection.run_sync(look)
        finally:
            await engine.dispose()

    return asyncio.run(run())
