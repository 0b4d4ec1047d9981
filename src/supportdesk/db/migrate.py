"""Run Alembic migrations programmatically (the CLI and the tests use this)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

import asyncpg
from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError

from supportdesk.db.database import Database, _ensure_sqlite_folder

MIGRATIONS = Path(__file__).parent / "migrations"


def alembic_config(database_url: str) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.set_main_option("sqlalchemy.url", database_url.replace("%", "%%"))
    return config


def upgrade(database_url: str, revision: str = "head") -> None:
    """Bring the database to `revision`; safe to run again."""
    if database_url.startswith("sqlite"):
        _ensure_sqlite_folder(database_url)
    command.upgrade(alembic_config(database_url), revision)


@dataclass(frozen=True)
class SchemaCheck:
    """What a process about to serve learns of the schema: a reason not to start (none yet,
    or behind this release), or a warning to start with (it could not tell, or the schema
    is newer: a rolling upgrade migrates before every process runs the new release)."""

    refusal: str | None = None
    warning: str | None = None


async def check_schema(database_url: str) -> SchemaCheck:
    """Whether this release may serve the database as its schema stands."""
    scripts = ScriptDirectory.from_config(alembic_config(database_url))
    head = scripts.get_current_head()
    if _empty_sqlite_file(database_url):
        return SchemaCheck(refusal=NO_SCHEMA)
    try:
        current = await _revision(database_url)
    except _NoRevisionTable:
        return SchemaCheck(refusal=NO_SCHEMA)
    except (DBAPIError, OSError) as error:
        if isinstance(error, FileNotFoundError):
            raise
        reason = error.orig if isinstance(error, DBAPIError) else error
        return SchemaCheck(warning=f"Could not read the schema's revision ({reason}).")
    if current is None or current == head:
        return SchemaCheck()
    known = {revision.revision for revision in scripts.walk_revisions()}
    if current not in known:
        return SchemaCheck(
            warning=f"The database's schema ({current}) is newer than this release's ({head})."
        )
    return SchemaCheck(
        refusal=(
            f"The database's schema is at {current}, this release needs {head}:"
            " run `supportdesk migrate`."
        )
    )


NO_SCHEMA = "The database has no schema yet: run `supportdesk init` (or `migrate`) first."


class _NoRevisionTable(Exception):
    """Neither Alembic's table nor ours: a database never migrated."""


def _empty_sqlite_file(database_url: str) -> bool:
    # Opening one would write SQLite's header into it (the WAL pragma): look, do not open.
    database = make_url(database_url).database
    if not database_url.startswith("sqlite") or not database or database == ":memory:":
        return False
    path = Path(database)
    return path.is_file() and path.stat().st_size == 0


async def _revision(database_url: str) -> str | None:
    """The revision Alembic recorded; None when the schema is there without Alembic's table
    (a Citus worker: the table is the coordinator's)."""
    db = Database(database_url, pool_size=1)
    try:
        try:
            async with db.read() as connection:
                found = await connection.scalar(text("SELECT version_num FROM alembic_version"))
            return str(found) if found is not None else None
        except DBAPIError as error:
            if not _is_missing_table(error):
                raise
        try:
            async with db.read() as connection:
                # A table of ours that holds no workspace's rows (since 0003): no row is read.
                await connection.scalar(text("SELECT 1 FROM service_secrets LIMIT 0"))
        except DBAPIError as error:
            if _is_missing_table(error):
                raise _NoRevisionTable from None
            raise
        return None
    finally:
        await db.dispose()


def _is_missing_table(error: DBAPIError) -> bool:
    orig = error.orig
    if isinstance(orig, sqlite3.OperationalError):
        return str(orig).startswith("no such table")
    return isinstance(orig, asyncpg.UndefinedTableError)
