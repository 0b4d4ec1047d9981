"""`supportdesk serve`'s sizing: the worker count and the database connections it may open."""

from __future__ import annotations

import os

from supportdesk.config import Settings
from supportdesk.server import connection_budget_warning, connections_per_worker, default_workers


def test_the_default_worker_count_is_the_cores_this_process_may_use() -> None:
    assert default_workers() == len(os.sched_getaffinity(0))


def test_a_worker_opens_at_most_twice_its_pool_on_postgresql() -> None:
    assert connections_per_worker(Settings(database_url="postgresql://h/db", db_pool_size=7)) == 14
    assert connections_per_worker(Settings(database_url="sqlite:///x.db", db_pool_size=7)) == 8


def test_serve_warns_when_its_workers_could_exhaust_postgresql(postgresql_url: str) -> None:
    modest = Settings(database_url=postgresql_url, db_pool_size=2)
    greedy = Settings(database_url=postgresql_url, db_pool_size=10_000)

    assert connection_budget_warning(modest, workers=2) is None
    warning = connection_budget_warning(greedy, workers=2)
    assert warning is not None
    assert "2 workers x 20000 connections = 40000" in warning
    assert "more than PostgreSQL allows" in warning


def test_serve_says_when_it_cannot_read_the_limit() -> None:
    unreachable = Settings(database_url="postgresql://postgres@127.0.0.1:1/none")

    warning = connection_budget_warning(unreachable, workers=2)

    assert warning is not None and warning.startswith("Could not read PostgreSQL's max_connections")


def test_sqlite_needs_no_connection_budget() -> None:
    assert connection_budget_warning(Settings(database_url="sqlite:///x.db"), workers=64) is None
