"""Input the fuzzer found to break storage: refused cleanly on every backend, nothing written."""

from __future__ import annotations

import base64

from tests.client import GraphQLClient

CREATE = (
    "mutation ($input: CreateMachineUserInput!) "
    "{ createMachineUser(input: $input) { machineUser { id } error { code } } }"
)
NAMES = "{ machineUsers { edges { node { name } } } }"


def names(api: GraphQLClient) -> list[str]:
    return [edge["node"]["name"] for edge in api.ok(NAMES)["machineUsers"]["edges"]]


def test_a_nul_character_in_a_literal_is_refused(api: GraphQLClient) -> None:
    answer = api('mutation { createMachineUser(input: {name: "a\\u0000b"}) { error { code } } }')

    assert answer.codes == ["GRAPHQL_VALIDATION_FAILED"]
    assert "NUL" in answer.errors[0]["message"]
    assert names(api) == ["Workspace API"]


def test_a_nul_character_in_a_variable_is_refused(api: GraphQLClient) -> None:
    answer = api(CREATE, {"input": {"name": "ok", "description": "\x00"}})

    assert answer.codes == ["BAD_USER_INPUT"]
    assert "NUL" in answer.errors[0]["message"]
    assert names(api) == ["Workspace API"]


def test_a_cursor_that_hides_a_nul_character_is_refused(api: GraphQLClient) -> None:
    cursor = base64.urlsafe_b64encode(b"c1:\x00").decode().rstrip("=")

    answer = api(
        "query ($after: String) { auditEvents(after: $after) { totalCount } }", {"after": cursor}
    )

    assert answer.codes == ["BAD_USER_INPUT"]
    assert answer.error_at("auditEvents")["message"] == "`after` is not a cursor this API gave out."
