"""Run Alembic migrations programmatically (the CLI and the tests use this)."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config

MIGRATIONS = Path(__file__).parent / "migrations"


def alembic_config(database_url: str) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.set_main_option("sqlalchemy.url", database_url.replace("%", "%%"))
    return config


def upgrade(database_url: str, revision: str = "head") -> None:
    """Bring the database to `revision`; safe to run again."""
    if database_url.startswith("sqlite"):
        from supportdesk.db.database import _ensure_sqlite_folder

        _ensure_sqlite_folder(database_url)
    command.upgrade(alembic_config(database_url), revision)


async def unmigrated(database_url: str) -> str | None:
    """Why this release cannot serve the database as its schema stands, or None when the
    schema is at this release's head."""
    from alembic.script import ScriptDirectory
    from sqlalchemy import text
    from sqlalchemy.exc import DBAPIError

    from supportdesk.db.database import Database

    scripts = ScriptDirectory.from_config(alembic_config(database_url))
    head = scripts.get_current_head()
    db = Database(database_url, pool_size=1)
    try:
        async with db.read() as connection:
            current = await connection.scalar(text("SELECT version_num FROM alembic_version"))
    except DBAPIError as error:
        if "alembic_version" not in str(error.orig):
            raise
        current = None
    finally:
        await db.dispose()
    if current == head:
        return None
    if current is None:
        return "The database has no schema yet: run `supportdesk init` (or `migrate`) first."
    if scripts.get_revision(current) is None:
        return f"The database's schema ({current}) is newer than this release knows ({head})."
    return (
        f"The database's schema is at {current}, this release needs {head}:"
        " run `supportdesk migrate`."
    )
