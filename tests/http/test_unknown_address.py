"""An address nothing serves: a browser gets the site's problem page, a client the API's
JSON error; both are 404 and carry the usual headers."""

from __future__ import annotations

import httpx
import pytest

from tests.servers import RunningServer


@pytest.mark.parametrize("path", ["/nonexistent", "/graphql/typo", "/static/missing.js"])
def test_a_browser_gets_the_problem_page(server: RunningServer, path: str) -> None:
    answer = httpx.get(f"{server.base_url}{path}", headers={"Accept": "text/html"}, timeout=30)

    assert answer.status_code == 404
    assert answer.headers["content-type"].startswith("text/html")
    assert "Page not found" in answer.text
    assert 'href="/inbox/">Back to the inbox</a>' in answer.text
    assert "default-src" in answer.headers["content-security-policy"]
    assert answer.headers["x-request-id"]


def test_a_client_gets_the_apis_error(server: RunningServer) -> None:
    answer = httpx.post(f"{server.base_url}/graphq", json={"query": "{ apiInfo }"}, timeout=30)

    assert answer.status_code == 404
    error = answer.json()["error"]
    assert error["code"] == "NOT_FOUND"
    assert "POST /graphql" in error["message"]
    assert answer.headers["x-request-id"]
