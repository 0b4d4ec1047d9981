"""Checking every operation of an area against every scope of the catalogue."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from supportdesk.auth.scopes import SCOPES
from tests.conftest import WorkspaceFixture

# name -> (document, variables for the n-th try: unique values so creations do not collide)
Operations = Mapping[str, tuple[str, Callable[[int], dict[str, Any] | None]]]


def check_every_scope(
    workspace: WorkspaceFixture, operations: Operations, allowed_by: Mapping[str, set[str]]
) -> None:
    """For each scope, a key with only that scope may use exactly the operations that the
    scope allows; the others answer null with FORBIDDEN naming the scopes that would."""
    assert set(operations) == set(allowed_by)
    for attempt, scope in enumerate(sorted(SCOPES)):
        client = workspace.client(workspace.create_key([scope]))
        for operation, (query, variables) in operations.items():
            answer = client(query, variables(attempt))
            assert answer.status == 200, (scope, operation, answer.body)
            if scope in allowed_by[operation]:
                at_root = [e for e in answer.errors if e.get("path") == [operation]]
                assert not at_root, (scope, operation, answer.body)
                assert answer.data[operation] is not None, (scope, operation, answer.body)
            else:
                assert answer.data[operation] is None, (scope, operation)
                error = answer.error_at(operation)["extensions"]
                assert error == {
                    "code": "FORBIDDEN",
                    "requiredScopes": sorted(allowed_by[operation]),
                }, (scope, operation)
