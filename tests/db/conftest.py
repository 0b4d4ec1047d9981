"""Fixtures of the migration tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from supportdesk.config import normalise_database_url
from tests.servers import IN_CI, create_postgres_database, drop_postgres_database


@pytest.fixture(params=["sqlite", "postgresql"])
def empty_database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'migrations.db'}"
        return
    try:
        url = create_postgres_database()
    except Exception as error:
        if IN_CI:
            pytest.fail(f"PostgreSQL is required in CI: {error}")
        pytest.skip(f"PostgreSQL not reachable: {error}")
    yield normalise_database_url(url)
    drop_postgres_database(url)
