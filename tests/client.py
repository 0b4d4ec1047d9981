"""A GraphQL client for the tests: real HTTP against the running server."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx


@dataclass
class Answer:
    status: int
    body: dict[str, Any]
    headers: httpx.Headers

    @property
    def data(self) -> dict[str, Any]:
        return self.body.get("data") or {}

    @property
    def errors(self) -> list[dict[str, Any]]:
        return self.body.get("errors") or []

    @property
    def codes(self) -> list[str]:
        return [error["extensions"]["code"] for error in self.errors]

    def error_at(self, *path: str | int) -> dict[str, Any]:
        matches = [error for error in self.errors if tuple(error.get("path") or ()) == path]
        assert matches, f"no error at {path}: {self.errors}"
        return matches[0]


class GraphQLClient:
    def __init__(self, base_url: str, key: str | None) -> None:
        self.base_url = base_url
        self.key = key
        self.http = httpx.Client(base_url=base_url, timeout=30)

    def headers(self, key: str | None = None) -> dict[str, str]:
        secret = key or self.key
        return {"Authorization": f"Bearer {secret}"} if secret else {}

    def __call__(
        self,
        query: str,
        variables: dict[str, Any] | None = None,
        *,
        key: str | None = None,
        **extra: Any,
    ) -> Answer:
        payload: dict[str, Any] = {"query": query}
        if variables is not None:
            payload["variables"] = variables
        payload.update(extra)
        response = self.http.post("/graphql", json=payload, headers=self.headers(key))
        return Answer(response.status_code, response.json(), response.headers)

    def ok(
        self, query: str, variables: dict[str, Any] | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        """The data of an answer that must have no errors."""
        answer = self(query, variables, **kwargs)
        assert answer.status == 200 and not answer.errors, answer.body
        return answer.data

    def with_key(self, key: str | None) -> GraphQLClient:
        return GraphQLClient(self.base_url, key)
