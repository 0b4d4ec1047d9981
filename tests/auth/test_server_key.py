"""The session-signing key: configured, or made once and shared by every process."""

from __future__ import annotations

import asyncio
import stat
from pathlib import Path

from supportdesk.auth.secret_box import SecretBox
from supportdesk.auth.server_key import ServerKey, session_key, sqlite_key_file
from supportdesk.config import normalise_database_url
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
    (tmp_path / "data").mkdir()  # as migrating, which makes the database, makes it

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


def box_for(url: str, configured: str | None) -> SecretBox | None:
    async def resolve() -> SecretBox | None:
        db = Database(url, pool_size=1)
        try:
            return await ServerKey(configured, db).secret_box()
        finally:
            await db.dispose()

    return asyncio.run(resolve())


def test_with_several_keys_the_first_signs_sessions(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'supportdesk.db'}"

    assert key_for(url, "new-key, old-key") == "new-key"


def test_webhook_secrets_sealed_under_an_old_key_open_after_a_new_one_is_put_first(
    tmp_path: Path,
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'supportdesk.db'}"
    old, rotated = box_for(url, "old-key"), box_for(url, "new-key,old-key")
    assert old is not None and rotated is not None

    sealed = old.seal("whsec_secret")

    assert rotated.open(sealed) == "whsec_secret"
    assert "old-key" not in sealed


def test_the_embedded_default_seals_with_its_key_file(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'supportdesk.db'}"
    first, second = box_for(url, None), box_for(url, None)
    assert first is not None and second is not None

    assert second.open(first.seal("whsec_secret")) == "whsec_secret"
    assert (tmp_path / "secret_key").exists()


def test_postgresql_without_a_configured_key_has_nothing_to_seal_with(
    postgresql_url: str,
) -> None:
    # The generated key lives in the database itself: sealing with it would protect nothing.
    url = normalise_database_url(postgresql_url)

    assert box_for(url, None) is None
    assert box_for(url, "configured") is not None
