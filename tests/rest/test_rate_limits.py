"""Rate limits (CONTRACT sections 7, 8 and 13): the same per-key bucket as GraphQL, and the
same limit on failed authentications per address, on both limiter backends."""

from __future__ import annotations

import httpx
import pytest

from tests.conftest import WorkspaceFixture, make_workspace
from tests.factories import missing_id
from tests.http.test_rate_limits import fresh_address
from tests.rest.client import ISSUE
from tests.servers import RunningServer


@pytest.fixture(scope="module")
def throttled_workspace(throttled_server: RunningServer) -> WorkspaceFixture:
    return make_workspace(throttled_server)


def client(server: RunningServer, key: str | None) -> httpx.Client:
    headers = {"X-Forwarded-For": fresh_address()}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    return httpx.Client(base_url=server.base_url, headers=headers, timeout=30)


def test_the_fourth_request_in_a_minute_is_refused(
    throttled_server: RunningServer, throttled_workspace: WorkspaceFixture
) -> None:
    key = throttled_workspace.create_key(["issues:create", "issues:read"])

    with client(throttled_server, key) as http:
        created = http.post("/v1/issues", json=ISSUE)
        answers = [
            created,
            http.get(f"/v1/issues/{created.json()['id']}"),
            http.post("/v1/issues", json={}),
            http.post("/v1/issues", json=ISSUE),
        ]

    assert [a.status_code for a in answers] == [201, 200, 422, 429]
    assert [a.headers["x-ratelimit-remaining"] for a in answers] == ["2", "1", "0", "0"]
    assert {a.headers["x-ratelimit-limit"] for a in answers} == {"3"}
    refused = answers[3]
    assert refused.json()["error"]["code"] == "RATE_LIMITED"
    assert refused.json()["error"]["retry_after"] == int(refused.headers["retry-after"])
    assert 1 <= int(refused.headers["retry-after"]) <= 60
    assert "retry-after" not in answers[0].headers


def test_rest_and_graphql_spend_the_same_bucket(
    throttled_server: RunningServer, throttled_workspace: WorkspaceFixture
) -> None:
    key = throttled_workspace.create_key(["issues:read"])

    with client(throttled_server, key) as http:
        statuses = [
            http.post("/graphql", json={"query": "{ apiInfo }"}).status_code,
            http.get(f"/v1/issues/{missing_id('Issue')}").status_code,
            http.post("/graphql", json={"query": "{ apiInfo }"}).status_code,
            http.get(f"/v1/issues/{missing_id('Issue')}").status_code,
        ]

    assert statuses == [200, 404, 200, 429]


def test_failed_authentications_past_the_limit_get_429(throttled_server: RunningServer) -> None:
    with client(throttled_server, "svc_mk_not-a-key") as http:
        answers = [http.post("/v1/issues", json=ISSUE) for _ in range(3)]

    assert [a.status_code for a in answers] == [401, 401, 429]
    refused = answers[2]
    assert refused.json()["error"]["code"] == "RATE_LIMITED"
    assert int(refused.headers["retry-after"]) >= 1
    assert "x-ratelimit-limit" not in refused.headers
