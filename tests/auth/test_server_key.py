"""The session-signing key: configured, or made once and shared by every process."""

from __future__ import annotations

import asyncio
import stat
from pathlib import Path

from supportdesk.auth.server_key import session_key, sqlite_key_file
from supportdesk.db import Database


def key_for(url: str, configured: str | None = None) -> str:
    async def resolve() -> str:
        db = Database(url, pool_size=1)
        try:
            return await session_key(configured, db)
        finally:
            await db.dispose()

    return asyncio.run(resolve())


def test_on_sqlite_it_is_made_once_next_to_the_database(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'data' / 'supportdesk.db'}"

    first, second = key_for(url), key_for(url)

    path = tmp_path / "data" / "secret_key"
    assert sqlite_key_file(url) == path
    assert first == second == path.read_text().strip()
    assert len(first) >= 64
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_the_configured_key_wins(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'supportdesk.db'}"

    assert key_for(url, "configured-secret-key") == "configured-secret-key"
    assert not (tmp_path / "secret_key").exists()


def test_an_in_memory_database_gets_a_key_of_its_own() -> None:
    url = "sqlite+aiosqlite:///:memory:"

    assert sqlite_key_file(url) is None
    assert key_for(url) != key_for(url)
