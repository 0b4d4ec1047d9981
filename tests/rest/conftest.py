"""Fixtures of the REST tests: a client per kind of key, and the servers with other limits
that tests/http uses (imported, so that both share them)."""

from __future__ import annotations

import pytest

from tests.conftest import WorkspaceFixture
from tests.http.conftest import breakable_server, fuzz_server, throttled_server
from tests.rest.client import RestClient

__all__ = ["breakable_server", "fuzz_server", "throttled_server"]


@pytest.fixture
def rest(workspace: WorkspaceFixture) -> RestClient:
    """REST with the workspace's Full-access key."""
    return RestClient(workspace.server.base_url, workspace.key)


@pytest.fixture
def legacy_rest(workspace: WorkspaceFixture) -> RestClient:
    """REST with a legacy svc_live_ key (its one scope: issues:create)."""
    return RestClient(workspace.server.base_url, workspace.create_key([], legacy=True))
