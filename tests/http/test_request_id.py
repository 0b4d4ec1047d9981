"""Every answer carries X-Request-Id (CONTRACT section 7)."""

from __future__ import annotations

import re

import httpx
import pytest

from tests.conftest import WorkspaceFixture
from tests.servers import RunningServer

GENERATED = re.compile(r"\A[0-9a-f]{32}\Z")


def requests(key: str) -> list[tuple[str, str, dict[str, object]]]:
    auth = {"Authorization": f"Bearer {key}"}
    return [
        ("POST", "/graphql", {"json": {"query": "{ apiInfo }"}, "headers": auth}),
        ("GET", "/graphql", {"params": {"query": "{ apiInfo }"}, "headers": auth}),
        ("POST", "/graphql", {"json": {"query": "{ apiInfo }"}}),  # 401
        (
            "POST",
            "/graphql",
            {"content": b"{not json", "headers": {**auth, "Content-Type": "application/json"}},
        ),  # 400
        ("POST", "/graphql", {"json": {"query": "{ nope }"}, "headers": auth}),  # validation
        (
            "POST",
            "/graphql",
            {"content": b"query", "headers": {**auth, "Content-Type": "text/plain"}},
        ),  # 415
        ("PUT", "/graphql", {"json": {"query": "{ apiInfo }"}, "headers": auth}),  # 405
        (
            "POST",
            "/graphql",
            {"json": {"query": "{ apiInfo }", "pad": "x" * 1_100_000}, "headers": auth},
        ),  # 413
        ("GET", "/healthz", {}),
        ("GET", "/readyz", {}),
        ("GET", "/no-such-page", {}),  # 404
    ]


def test_every_answer_carries_a_new_request_id(workspace: WorkspaceFixture) -> None:
    seen: dict[int, str] = {}
    with httpx.Client(base_url=workspace.server.base_url, timeout=30) as client:
        for method, path, options in requests(workspace.key):
            response = client.request(method, path, **options)  # type: ignore[arg-type]
            request_id = response.headers.get("x-request-id", "")
            assert GENERATED.match(request_id), (method, path, response.status_code)
            seen[response.status_code] = request_id

    assert set(seen) >= {200, 401, 400, 415, 405, 413, 404}


def test_ids_differ_between_requests(server: RunningServer) -> None:
    ids = {httpx.get(f"{server.base_url}/healthz").headers["x-request-id"] for _ in range(5)}

    assert len(ids) == 5


def test_a_sane_incoming_request_id_is_kept(server: RunningServer) -> None:
    response = httpx.get(f"{server.base_url}/healthz", headers={"X-Request-Id": "trace-42.abc_X"})

    assert response.headers["x-request-id"] == "trace-42.abc_X"


@pytest.mark.parametrize("incoming", ["has spaces", "x" * 65, 'bad"quote', ""])
def test_an_unsafe_incoming_request_id_is_replaced(server: RunningServer, incoming: str) -> None:
    response = httpx.get(f"{server.base_url}/healthz", headers={"X-Request-Id": incoming})

    assert GENERATED.match(response.headers["x-request-id"])
