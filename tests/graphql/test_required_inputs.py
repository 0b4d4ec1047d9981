"""A required value left out of a mutation's input comes back in the payload's `error`
(VALIDATION_FAILED, the field REQUIRED), the same for every mutation: inputs declare their
values nullable, so that GraphQL's own validation never answers for the service."""

from __future__ import annotations

import pytest

from tests.client import GraphQLClient

MACHINE_USER_ID = "{ machineUsers(first: 1) { edges { node { id } } } }"

# Mutation, its input without the required values (ids to act on stay: they are ID!), and
# the fields the payload names REQUIRED.
CASES = [
    ("createIssue", "{}", "issue", ["subject", "body", "requesterEmail"]),
    ("createMachineUser", "{}", "machineUser", ["name"]),
    ("createApiKey", '{machineUserId: "$MU"}', "apiKey", ["name"]),
    ("createApiKey", '{machineUserId: "$MU", name: "k"}', "apiKey", ["scopes"]),
    ("createMailbox", "{}", "mailbox", ["address"]),
    ("createWebhookEndpoint", "{}", "webhookEndpoint", ["url"]),
    ("createLabel", "{}", "label", ["name"]),
    ("createContact", "{}", "contact", ["email"]),
]


@pytest.mark.parametrize(("mutation", "given", "result", "required"), CASES)
def test_a_missing_required_value_is_a_payload_error(
    api: GraphQLClient, mutation: str, given: str, result: str, required: list[str]
) -> None:
    machine_user = api.ok(MACHINE_USER_ID)["machineUsers"]["edges"][0]["node"]["id"]
    document = (
        f"mutation {{ {mutation}(input: {given.replace('$MU', machine_user)}) "
        f"{{ {result} {{ id }} error {{ code fields {{ field code }} }} }} }}"
    )

    answer = api(document)

    assert answer.errors == [], answer.errors
    payload = answer.data[mutation]
    assert payload[result] is None
    assert payload["error"]["code"] == "VALIDATION_FAILED"
    assert {field["field"] for field in payload["error"]["fields"]} >= set(required)
    assert {field["code"] for field in payload["error"]["fields"]} == {"REQUIRED"}
