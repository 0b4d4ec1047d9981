"""The GraphQL request a generated method makes, as it goes over the wire."""

from __future__ import annotations

import re
import uuid
from typing import Any

# Mutations whose repetition the service de-duplicates, with the input field that holds
# the key (docs/api.md: createIssue's idempotencyKey).
IDEMPOTENT_MUTATIONS = {"CreateIssue": "idempotencyKey"}
_MUTATION = re.compile(r"^\s*mutation\b")


def graphql_request(
    query: str, operation_name: str | None, variables: dict[str, Any]
) -> dict[str, Any]:
    """The JSON body; a `createIssue` without an idempotency key gets a fresh one, so that
    every retry of this call (ours or the caller's with this body) creates one issue."""
    key_field = IDEMPOTENT_MUTATIONS.get(operation_name or "")
    mutation_input = variables.get("input")
    if key_field and isinstance(mutation_input, dict) and not mutation_input.get(key_field):
        variables = {**variables, "input": {**mutation_input, key_field: str(uuid.uuid4())}}
    return {"query": query, "operationName": operation_name, "variables": variables}


def is_repeatable(request: dict[str, Any]) -> bool:
    """Whether sending the request twice does what sending it once does: a query, or a
    mutation the service de-duplicates by its key."""
    if not _MUTATION.match(request["query"]):
        return True
    return request.get("operationName") in IDEMPOTENT_MUTATIONS
