"""`supportdesk serve`'s sizing (the worker count and the database connections it may
open) and the application it runs in each worker."""

from __future__ import annotations

import gc
import os
from pathlib import Path

import pytest
from starlette.applications import Starlette

from supportdesk import server
from supportdesk.config import Settings
from supportdesk.server import (
    GC_YOUNG_THRESHOLD,
    connection_budget_warning,
    connections_per_worker,
    default_workers,
    served_app,
)


def test_the_default_worker_count_is_the_cores_this_process_may_use() -> None:
    assert default_workers() == len(os.sched_getaffinity(0))


def test_a_worker_opens_at_most_twice_its_pool_and_two_on_postgresql() -> None:
    # The pool at its limit, and the live stream's LISTEN and NOTIFY connections, which
    # Redis takes over when there is one (tests/scale measures it).
    assert connections_per_worker(Settings(database_url="postgresql://h/db", db_pool_size=7)) == 16
    with_redis = Settings(database_url="postgresql://h/db", db_pool_size=7, redis_url="redis://r")
    assert connections_per_worker(with_redis) == 14
    assert connections_per_worker(Settings(database_url="sqlite:///x.db", db_pool_size=7)) == 2


def _postgresql_allows(monkeypatch: pytest.MonkeyPatch, limit: int) -> None:
    async def max_connections(_settings: Settings) -> int:
        return limit

    monkeypatch.setattr(server, "_postgres_connection_limit", max_connections)


def test_the_warning_counts_every_connection_of_every_worker(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    settings = Settings(database_url="postgresql://h/db", db_pool_size=2, webhook_dispatch=False)

    _postgresql_allows(monkeypatch, 12)
    assert connection_budget_warning(settings, workers=2) is None

    _postgresql_allows(monkeypatch, 11)
    assert connection_budget_warning(settings, workers=2) == (
        "2 workers x 6 connections = 12, more than PostgreSQL allows (11): lower"
        " SUPPORTDESK_DB_POOL_SIZE or --workers, or raise max_connections (docs/deploy.md)."
    )


def test_the_warning_counts_the_dispatcher_as_one_more_worker(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    settings = Settings(database_url="postgresql://h/db", db_pool_size=2)

    _postgresql_allows(monkeypatch, 18)
    assert connection_budget_warning(settings, workers=2) is None

    _postgresql_allows(monkeypatch, 17)
    warning = connection_budget_warning(settings, workers=2)
    assert warning is not None
    assert warning.startswith("3 processes (2 workers and a dispatcher) x 6 connections = 18,")


def test_serve_warns_when_its_workers_could_exhaust_postgresql(postgresql_url: str) -> None:
    modest = Settings(database_url=postgresql_url, db_pool_size=2, webhook_dispatch=False)
    greedy = Settings(database_url=postgresql_url, db_pool_size=10_000, webhook_dispatch=False)

    assert connection_budget_warning(modest, workers=2) is None
    warning = connection_budget_warning(greedy, workers=2)
    assert warning is not None
    assert "2 workers x 20002 connections = 40004" in warning
    assert "more than PostgreSQL allows" in warning


def test_serve_says_when_it_cannot_read_the_limit() -> None:
    unreachable = Settings(database_url="postgresql://postgres@127.0.0.1:1/none")

    warning = connection_budget_warning(unreachable, workers=2)

    assert warning is not None and warning.startswith("Could not read PostgreSQL's max_connections")


def test_sqlite_needs_no_connection_budget() -> None:
    assert connection_budget_warning(Settings(database_url="sqlite:///x.db"), workers=64) is None


def test_served_app_freezes_start_up_objects_and_collects_young_ones_less_often(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SUPPORTDESK_DATABASE_URL", f"sqlite:///{tmp_path / 'served.db'}")
    threshold = gc.get_threshold()
    try:
        app = served_app()

        assert isinstance(app, Starlette)
        assert gc.get_freeze_count() > 10_000  # the schema, the metadata, the modules
        assert gc.get_threshold()[0] == GC_YOUNG_THRESHOLD
    finally:
        gc.unfreeze()
        gc.set_threshold(*threshold)
