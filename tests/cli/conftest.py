"""A fresh, empty database per CLI test, on each backend."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.servers import IN_CI, create_postgres_database, drop_postgres_database


@pytest.fixture(params=["sqlite", "postgresql"])
def fresh_database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The URL of an empty database, as an operator writes it."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'data' / 'supportdesk.db'}"
        return
    try:
        url = create_postgres_database()
    except Exception as error:
        if IN_CI:
            pytest.fail(f"PostgreSQL is required in CI and was not reachable: {error}")
        pytest.skip(f"PostgreSQL not reachable ({error})")
    yield url
    drop_postgres_database(url)
