"""The deployment's own secret: it signs the settings page's session cookie and the
cursors of every list, and seals webhook secrets (a key for each purpose is derived from it).

SUPPORTDESK_SECRET_KEY when set. Otherwise the service makes one once and keeps it where
every process of the deployment finds it: in a file next to the SQLite database, or in
the PostgreSQL database itself. Whoever creates it first wins; the others read it.
"""

from __future__ import annotations

import asyncio
import os
import secrets
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import insert, select
from sqlalchemy.engine import make_url
from sqlalchemy.exc import IntegrityError

from supportdesk.auth.key_derivation import derive
from supportdesk.auth.secret_box import SecretBox, parse_server_keys
from supportdesk.db import Database
from supportdesk.db.tables import service_secrets

ROW_NAME = "session_key"
# The purpose the key of every list's cursors is derived for (domain/pagination.Cursors).
CURSOR_KEY_PURPOSE = "supportdesk cursors"
FILE_NAME = "secret_key"


def _new_key() -> str:
    return secrets.token_urlsafe(48)


def sqlite_key_file(database_url: str) -> Path | None:
    """`secret_key` in the folder of the SQLite file; None for an in-memory database."""
    database = make_url(database_url).database
    if not database or database == ":memory:":
        return None
    return Path(database).resolve().parent / FILE_NAME


def _read_or_create_file(path: Path) -> str:
    if path.exists():
        return path.read_text().strip()
    # Written aside, then linked into place: linking fails if another process won the race,
    # and no reader ever sees a half-written file.
    draft = path.with_name(f".{FILE_NAME}.{os.getpid()}.{secrets.token_hex(4)}")
    descriptor = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w") as handle:
        handle.write(_new_key() + "\n")
    try:
        os.link(draft, path)
    except FileExistsError:
        pass
    finally:
        draft.unlink()
    return path.read_text().strip()


async def _read_or_create_row(db: Database) -> str:
    query = select(service_secrets.c.value).where(service_secrets.c.name == ROW_NAME)
    async with db.read() as connection:
        found = await connection.scalar(query)
    if found:
        return str(found)
    try:
        async with db.transaction() as connection:
            await connection.execute(
                insert(service_secrets).values(
                    name=ROW_NAME, value=_new_key(), created_at=datetime.now(UTC)
                )
            )
    except IntegrityError:
        pass  # another process stored one first: use theirs
    async with db.read() as connection:
        return str(await connection.scalar(query))


async def session_key(configured: str | None, db: Database) -> str:
    """The signing key every process of this deployment shares: the first configured key
    (several, comma-separated, rotate webhook secrets' encryption; see `secret_box`)."""
    if configured:
        return parse_server_keys(configured)[0]
    if not db.is_sqlite:
        return await _read_or_create_row(db)
    path = sqlite_key_file(db.url)
    return _read_or_create_file(path) if path is not None else _new_key()


class ServerKey:
    """The deployment's secret, resolved once on first use, and keys derived from it."""

    def __init__(self, configured: str | None, db: Database) -> None:
        self._configured = configured
        self._db = db
        self._key: str | None = None
        self._lock = asyncio.Lock()

    async def secret(self) -> str:
        if self._key is None:
            async with self._lock:
                if self._key is None:
                    self._key = await session_key(self._configured, self._db)
        return self._key

    async def derived(self, purpose: str) -> bytes:
        return derive(await self.secret(), purpose)

    async def secret_box(self) -> SecretBox | None:
        """What seals webhook secrets: every configured key (the first seals), or the key
        file of the embedded SQLite default. None on PostgreSQL without a configured key:
        the key kept in the database would sit beside the secrets it protects."""
        if self._configured:
            return SecretBox(parse_server_keys(self._configured))
        if self._db.is_sqlite:
            return SecretBox([await self.secret()])
        return None
