"""createWebhookEndpoint: the secret once, validation, the SSRF rules, the per-workspace limit."""

from __future__ import annotations

import base64
import json

import pytest

from tests.client import GraphQLClient
from tests.conftest import WorkspaceFixture, make_workspace
from tests.graphql.events.helpers import all_events
from tests.graphql.webhooks.helpers import LIST, RECEIVER, create_payload, new_endpoint
from tests.servers import RunningServer


def test_an_endpoint_is_made_with_a_secret_shown_once(api: GraphQLClient) -> None:
    made = new_endpoint(
        api, description="CRM bridge", eventTypes=["issue.created", "issue.updated"]
    )

    endpoint, secret = made["webhookEndpoint"], made["secret"]
    assert endpoint["id"].startswith("whk_")
    assert endpoint["url"] == RECEIVER
    assert endpoint["eventTypes"] == ["issue.created", "issue.updated"]
    assert endpoint["enabled"] is True and endpoint["status"] == "active"
    assert endpoint["disabledReason"] is None
    assert secret.startswith("whsec_")
    assert len(base64.b64decode(secret.removeprefix("whsec_"))) == 32
    assert endpoint["secretPrefix"] == secret[:12]
    listed = api.ok(LIST)["webhookEndpoints"]
    assert [edge["node"] for edge in listed["edges"]] == [endpoint]
    assert secret not in json.dumps(listed)


def test_only_the_url_is_required(api: GraphQLClient) -> None:
    endpoint = new_endpoint(api)["webhookEndpoint"]

    assert endpoint["eventTypes"] == [] and endpoint["description"] == ""


def test_creating_records_an_event_and_an_audit_entry_without_the_secret(
    api: GraphQLClient,
) -> None:
    made = new_endpoint(api)

    [event] = all_events(api, types=["webhook_endpoint.created"])
    assert event["data"]["webhookEndpoint"]["id"] == made["webhookEndpoint"]["id"]
    audit = api.ok("{ auditEvents(first: 5) { edges { node { action data } } } }")
    assert "webhook_endpoint.created" in json.dumps(audit)
    assert made["secret"] not in json.dumps(event) + json.dumps(audit)


@pytest.mark.parametrize(
    "url",
    [
        "http://169.254.169.254/latest/meta-data/",
        "http://[::1]/",
        "http://10.0.0.1/",
        "https://localhost/hooks",
        "https://127.0.0.1/hooks",
        "ftp://hooks.example.com/",
        "javascript:alert(1)",
    ],
)
def test_unsafe_urls_are_refused_by_default(api: GraphQLClient, url: str) -> None:
    payload = create_payload(api, url=url)

    assert payload["webhookEndpoint"] is None and payload["secret"] is None
    assert payload["error"]["code"] == "VALIDATION_FAILED"
    assert payload["error"]["fields"] == [{"field": "url", "code": "UNSAFE_URL"}]


@pytest.mark.parametrize(
    ("url", "allowed"),
    [
        ("https://[::ffff:93.184.215.14]/hook", True),
        ("https://[::ffff:127.0.0.1]/hook", False),
        ("https://[::ffff:10.0.0.1]/hook", False),
        ("https://[::ffff:169.254.169.254]/hook", False),
    ],
)
def test_an_ipv4_mapped_address_is_judged_as_its_ipv4_address(
    api: GraphQLClient, url: str, allowed: bool
) -> None:
    payload = create_payload(api, url=url)

    if allowed:  # a public address, however it is written
        assert payload["error"] is None, payload
    else:
        assert payload["error"]["fields"] == [{"field": "url", "code": "UNSAFE_URL"}]


def test_unknown_event_types_are_named_invalid(api: GraphQLClient) -> None:
    payload = create_payload(api, eventTypes=["issue.created", "issue.exploded"])

    assert payload["error"]["code"] == "VALIDATION_FAILED"
    assert payload["error"]["fields"] == [{"field": "eventTypes", "code": "INVALID"}]
    assert payload["error"]["message"].endswith("Unknown event types: issue.exploded.")


def test_a_missing_url_is_required(api: GraphQLClient) -> None:
    payload = create_payload(api, url="  ")

    assert payload["error"]["fields"] == [{"field": "url", "code": "REQUIRED"}]


def test_a_workspace_has_at_most_25_endpoints(api: GraphQLClient) -> None:
    for n in range(25):
        new_endpoint(api, url=f"{RECEIVER}/{n}")

    payload = create_payload(api, url=f"{RECEIVER}/26")

    assert payload["error"]["code"] == "LIMIT_REACHED"
    assert api.ok(LIST)["webhookEndpoints"]["totalCount"] == 25


def test_a_key_without_the_scope_is_forbidden_and_told_which(
    workspace: WorkspaceFixture,
) -> None:
    reader = workspace.client(workspace.create_key(["issues:read", "api_keys:manage"]))

    answer = reader(
        'mutation { createWebhookEndpoint(input: {url: "https://x.example.com"}) { secret } }'
    )
    listed = reader("{ webhookEndpoints { totalCount } }")

    for refused in (answer, listed):
        assert refused.codes == ["FORBIDDEN"]
        assert refused.errors[0]["extensions"]["requiredScopes"] == ["webhooks:manage"]


def test_full_access_includes_the_webhook_scope(api: GraphQLClient) -> None:
    scopes = api.ok("{ apiInfo }")["apiInfo"]["key"]["scopes"]

    assert "webhooks:manage" in scopes


def test_postgresql_without_a_server_key_answers_not_configured_naming_the_setting(
    postgresql_url: str,
) -> None:
    unconfigured = RunningServer("postgresql", postgresql_url).start()
    try:
        api = make_workspace(unconfigured).client()

        payload = create_payload(api)
    finally:
        unconfigured.stop()

    assert payload["webhookEndpoint"] is None and payload["secret"] is None
    assert payload["error"]["code"] == "NOT_CONFIGURED"
    assert "SUPPORTDESK_SECRET_KEY" in payload["error"]["message"]
