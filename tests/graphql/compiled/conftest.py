"""A server per backend for the differential tests, its workspace filled once.

The server is the suite's kind (tests/servers.py) but without a per-key rate limit: the
differential tests send thousands of requests a minute with a handful of keys."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from tests.conftest import BACKENDS, TEST_SECRET_KEY, WorkspaceFixture, make_workspace
from tests.graphql.compiled.compare import Differ
from tests.graphql.compiled.dataset import Dataset, fill
from tests.servers import RunningServer


@dataclass
class Differential:
    backend: str
    workspace: WorkspaceFixture
    data: Dataset
    differ: Differ


@pytest.fixture(scope="package", params=BACKENDS)
def differential(request: pytest.FixtureRequest) -> Iterator[Differential]:
    url = request.getfixturevalue(f"{request.param}_url")
    server = RunningServer(
        request.param,
        url,
        failed_auth_per_minute=1_000_000,
        rate_limit_per_minute=1_000_000,
        secret_key=TEST_SECRET_KEY,
    ).start()
    try:
        workspace = make_workspace(server, "Differential")
        data = fill(workspace)
        differ = Differ(server.base_url)
        try:
            yield Differential(request.param, workspace, data, differ)
        finally:
            differ.close()
    finally:
        server.stop()
