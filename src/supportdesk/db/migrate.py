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
