"""A database out of reach answers 503 with Retry-After, which clients retry, on GraphQL and
REST alike, and is logged in one line, not a traceback per request; when it is back, the
same process answers again. PostgreSQL only: an SQLite file does not go away like this. The
outage is PostgreSQL's own: the database stops taking connections and the server's are
ended, as a restart or a failover does."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator

import httpx
import pytest

from tests.conftest import ADMIN_PASSWORD, make_workspace, new_postgres_database
from tests.graphql.issues.helpers import new_issue
from tests.servers import (
    RunningServer,
    _postgres,
    drop_postgres_database,
)
from tests.web.settings_client import SettingsClient


@pytest.fixture
def own_database() -> Iterator[str]:
    """A database of this test's own: its outage must not reach other tests' servers."""
    url = new_postgres_database()
    yield url
    asyncio.run(_postgres(f'ALTER DATABASE "{_name(url)}" ALLOW_CONNECTIONS true'))
    drop_postgres_database(url)


def _name(url: str) -> str:
    return url.rsplit("/", 1)[1]


def _outage(url: str) -> None:
    name = _name(url)
    asyncio.run(_postgres(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false'))
    asyncio.run(
        _postgres(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            f"WHERE datname = '{name}' AND pid <> pg_backend_pid()"
        )
    )


def test_an_unreachable_database_answers_503_and_the_process_recovers(
    own_database: str, caplog: pytest.LogCaptureFixture
) -> None:
    server = RunningServer("postgresql", own_database).start()
    try:
        workspace = make_workspace(server)
        api = workspace.client()
        query = {"query": "{ issues { totalCount } }"}
        issue_id = new_issue(api)["id"]
        agent = SettingsClient(server.base_url).logged_in(workspace.admin_email, ADMIN_PASSWORD)

        _outage(own_database)
        with caplog.at_level(logging.WARNING):
            # The pool's ended connections, then new ones refused at connect; a write first.
            write = {"query": 'mutation { createLabel(input: {name: "x"}) { error { code } } }'}
            graphql = [api.http.post("/graphql", json=write, headers=api.headers())]
            graphql += [
                api.http.post("/graphql", json=query, headers=api.headers()) for _ in range(4)
            ]
            rest = httpx.get(
                f"{server.base_url}/v1/issues/{issue_id}", headers=api.headers(), timeout=30
            )
            page = agent.get("/inbox/")
        asyncio.run(_postgres(f'ALTER DATABASE "{_name(own_database)}" ALLOW_CONNECTIONS true'))
        again = [api.http.post("/graphql", json=query, headers=api.headers()) for _ in range(4)]
    finally:
        server.stop()

    for answer in graphql:
        assert answer.status_code == 503, answer.text
        assert answer.headers["retry-after"] == "5"
        error = answer.json()["errors"][0]
        assert error["extensions"]["code"] == "INTERNAL_SERVER_ERROR"
        assert error["extensions"]["requestId"]
        assert "database" in error["message"]
    assert rest.status_code == 503, rest.text
    assert rest.headers["retry-after"] == "5"
    assert rest.json()["error"]["code"] == "INTERNAL_SERVER_ERROR"
    assert (page.status_code, page.headers["retry-after"]) == (503, "5")
    assert "Unavailable for a moment" in page.text and "<html" in page.text
    assert [answer.status_code for answer in again][-1] == 200
    logged = [record for record in caplog.records if record.name == "supportdesk.http"]
    assert [record.getMessage().split(":")[0] for record in logged] == ["database unavailable"] * 7
    assert all(record.exc_info is None for record in logged)
