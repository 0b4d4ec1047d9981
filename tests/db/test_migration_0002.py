"""Migration 0002 creates the articles table and each backend's search structures, and
takes them away again on downgrade."""

from __future__ import annotations

from alembic import command
from sqlalchemy import inspect

from supportdesk.db.migrate import alembic_config, upgrade
from tests.db.inspection import inspected


def search_structures(url: str) -> set[str]:
    """Tables, indexes and columns that search relies on, as the database reports them."""

    def look(connection: object) -> set[str]:
        inspector = inspect(connection)
        found = set(inspector.get_table_names())
        if "articles" in found:
            found |= {index["name"] or "" for index in inspector.get_indexes("articles")}
            found |= {column["name"] for column in inspector.get_columns("articles")}
        return found

    return inspected(url, look)


def test_up_down_and_up_again(empty_database: str) -> None:
    upgrade(empty_database)
    after_upgrade = search_structures(empty_database)
    command.downgrade(alembic_config(empty_database), "0001")
    after_downgrade = search_structures(empty_database)
    upgrade(empty_database)

    assert {"articles", "ix_articles_status", "search_rowid", "published_at"} <= after_upgrade
    if empty_database.startswith("sqlite"):
        assert {"articles_fts", "ix_articles_search_rowid"} <= after_upgrade
    else:
        assert {"search_vector", "ix_articles_search_vector"} <= after_upgrade
    assert "articles" not in after_downgrade
    assert "articles_fts" not in after_downgrade
    assert "contacts" in after_downgrade
    assert search_structures(empty_database) == after_upgrade
