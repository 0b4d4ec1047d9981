"""Migration 0003 adds the settings page's tables and takes them away again on downgrade."""

from __future__ import annotations

from alembic import command

from supportdesk.db.migrate import alembic_config, upgrade
from tests.db.test_migration_0002 import search_structures

SETTINGS_TABLES = {"login_failures", "form_submissions", "service_secrets"}


def test_up_down_and_up_again(empty_database: str) -> None:
    upgrade(empty_database)
    after_upgrade = search_structures(empty_database)
    command.downgrade(alembic_config(empty_database), "0002")
    after_downgrade = search_structures(empty_database)
    upgrade(empty_database)

    assert after_upgrade >= SETTINGS_TABLES
    assert not after_downgrade & SETTINGS_TABLES
    assert "articles" in after_downgrade
    assert search_structures(empty_database) == after_upgrade
