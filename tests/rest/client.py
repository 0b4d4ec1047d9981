"""A REST client for the tests: real HTTP against the running server's /v1."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx

ISSUE = {
    "subject": "Printer on fire",
    "body": "It is on fire.",
    "requester_email": "moss@example.com",
    "requester_name": "Maurice Moss",
}


@dataclass
class Reply:
    status: int
    body: Any
    headers: httpx.Headers

    @property
    def error(self) -> dict[str, Any]:
        error: dict[str, Any] = self.body["error"]
        return error

    @property
    def code(self) -> str:
        return str(self.error["code"])

    @property
    def fields(self) -> list[tuple[str, str]]:
        return [(f["field"], f["code"]) for f in self.error["fields"]]


class RestClient:
    def __init__(self, base_url: str, key: str | None) -> None:
        self.key = key
        self.http = httpx.Client(base_url=base_url, timeout=30)

    def headers(self, key: str | None = None, **extra: str) -> dict[str, str]:
        secret = key or self.key
        auth = {"Authorization": f"Bearer {secret}"} if secret else {}
        return {**auth, **extra}

    def request(self, method: str, path: str, **kwargs: Any) -> Reply:
        response = self.http.request(method, path, **kwargs)
        return Reply(response.status_code, response.json(), response.headers)

    def create(
        self, body: Any = None, *, key: str | None = None, idempotency_key: str | None = None
    ) -> Reply:
        """POST /v1/issues; the body defaults to a valid issue."""
        extra = {"Idempotency-Key": idempotency_key} if idempotency_key is not None else {}
        return self.request(
            "POST",
            "/v1/issues",
            json=ISSUE if body is None else body,
            headers=self.headers(key, **extra),
        )

    def created(self, **changes: Any) -> dict[str, Any]:
        """The body of a 201 for a valid issue with `changes`; fails the test otherwise."""
        reply = self.create({**ISSUE, **changes})
        assert reply.status == 201, reply.body
        created: dict[str, Any] = reply.body
        return created

    def get(self, issue_id: str, *, key: str | None = None, params: Any = None) -> Reply:
        """GET /v1/issues/{id}; `params`: the query's, as httpx takes them."""
        return self.request(
            "GET", f"/v1/issues/{issue_id}", headers=self.headers(key), params=params
        )

    def with_key(self, key: str | None) -> RestClient:
        return RestClient(str(self.http.base_url), key)
