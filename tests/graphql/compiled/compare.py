"""One request, answered both ways: by the executor (`"extensions": {"compiled": false}`)
and by whichever path the server picks (`{"compiled": true}`, which also says which
answered). The two answers must not differ: the HTTP status, the errors, the data (keys,
and key order too: a GraphQL answer keeps the order of its selection) and the extensions
but for the `compiled` flag.

The errors of two answers of the executor are compared in any order: it lists the errors
of fields resolved concurrently in the order they fail (a key without `issues:read` reading
`contact { issues }` and `account { issues }` gets the two errors in either order). A
compiled answer has no errors, so against one the comparison is exact."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import httpx


class DuplicateKey(Exception):
    pass


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [key for key, _ in pairs]
    if len(keys) != len(set(keys)):
        raise DuplicateKey(keys)
    return dict(pairs)


def decode(body: bytes) -> Any:
    """The JSON of an answer; an object with a key twice is an error (json.loads would
    keep the last)."""
    return json.loads(body, object_pairs_hook=_no_duplicates)


def _in_any_order(errors: list[Any] | None) -> list[str] | None:
    if errors is None:
        return None
    return sorted(json.dumps(error, sort_keys=True) for error in errors)


@dataclass
class Outcome:
    status: int
    body: dict[str, Any]
    raw: bytes


@dataclass
class Difference:
    query: str
    variables: dict[str, Any] | None
    key: str
    executor: Outcome
    compiled: Outcome
    what: str

    def __str__(self) -> str:
        return (
            f"{self.what} (key {self.key})\nquery: {self.query}\nvariables: "
            f"{json.dumps(self.variables, ensure_ascii=False)}\n"
            f"executor: {self.executor.status} {self.executor.raw.decode()[:3000]}\n"
            f"compiled: {self.compiled.status} {self.compiled.raw.decode()[:3000]}"
        )


@dataclass
class Tally:
    requests: int = 0
    compiled: int = 0
    differences: list[Difference] = field(default_factory=list)

    @property
    def share(self) -> float:
        return self.compiled / self.requests if self.requests else 0.0


class Differ:
    def __init__(self, base_url: str) -> None:
        self.http = httpx.Client(base_url=base_url, timeout=60)

    def close(self) -> None:
        self.http.close()

    def _post(
        self,
        query: str,
        variables: dict[str, Any] | None,
        key: str,
        compiled: bool,
        operation_name: str | None,
    ) -> Outcome:
        payload: dict[str, Any] = {"query": query, "extensions": {"compiled": compiled}}
        if variables is not None:
            payload["variables"] = variables
        if operation_name is not None:
            payload["operationName"] = operation_name
        response = self.http.post(
            "/graphql", json=payload, headers={"Authorization": f"Bearer {key}"}
        )
        return Outcome(response.status_code, decode(response.content), response.content)

    def compare(
        self,
        query: str,
        variables: dict[str, Any] | None,
        key: str,
        tally: Tally,
        operation_name: str | None = None,
    ) -> Difference | None:
        """Both answers; the difference between them, if any (also kept in `tally`)."""
        executor = self._post(query, variables, key, False, operation_name)
        either = self._post(query, variables, key, True, operation_name)
        tally.requests += 1
        difference = self._difference(executor, either)
        if either.body.get("extensions", {}).get("compiled") is True:
            tally.compiled += 1
        if difference is None:
            return None
        found = Difference(query, variables, key, executor, either, difference)
        tally.differences.append(found)
        return found

    @staticmethod
    def _difference(executor: Outcome, either: Outcome) -> str | None:
        if executor.status != either.status:
            return f"status {executor.status} != {either.status}"
        errors, others = executor.body.get("errors"), either.body.get("errors")
        if (either.body.get("extensions") or {}).get("compiled") is True:
            # A compiled answer has no errors (any error is the executor's to give).
            if errors != others:
                return "errors differ"
        elif _in_any_order(errors) != _in_any_order(others):
            # Both answers are the executor's: it lists the errors of fields resolved
            # concurrently in the order they fail, which varies from run to run.
            return "errors differ"
        if set(executor.body) != set(either.body):
            return f"top-level keys {sorted(executor.body)} != {sorted(either.body)}"
        mine, theirs = executor.body.get("data"), either.body.get("data")
        if json.dumps(mine, sort_keys=True) != json.dumps(theirs, sort_keys=True):
            return "data differ"
        if json.dumps(mine) != json.dumps(theirs):
            return "data differ in key order"
        extensions = dict(executor.body.get("extensions") or {})
        others = dict(either.body.get("extensions") or {})
        if extensions.pop("compiled", False) is not False:
            return "the executor's answer does not say compiled: false"
        others.pop("compiled", None)
        if extensions != others:
            return f"extensions {extensions} != {others}"
        return None
