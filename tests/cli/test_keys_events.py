"""`supportdesk keys create|revoke` record api_key.created / api_key.revoked with the
system as actor (CONTRACT sections 10 and 11)."""

from __future__ import annotations

import json
import subprocess

from tests.cli.runner import json_of, operator_url, supportdesk
from tests.client import GraphQLClient
from tests.conftest import WorkspaceFixture
from tests.graphql.events.helpers import events_after, last_sequence


def keys(workspace: WorkspaceFixture, *args: str) -> subprocess.CompletedProcess[str]:
    return supportdesk("keys", *args, database_url=operator_url(workspace.server.database_url))


def test_keys_create_records_api_key_created_by_the_system(
    workspace: WorkspaceFixture, api: GraphQLClient
) -> None:
    start = last_sequence(api)

    made = json_of(
        keys(
            workspace,
            "create",
            "--workspace",
            workspace.id,
            "--name",
            "ops",
            "--scopes",
            "issues:read,contacts:read",
            "--json",
        )
    )

    [event] = events_after(api, start)
    assert event["type"] == "api_key.created"
    assert event["actor"]["type"] == "system"
    assert event["actor"]["id"] is None
    assert event["workspaceId"] == workspace.id
    assert event["data"]["apiKey"]["id"] == made["id"]
    assert event["data"]["apiKey"]["keyPrefix"] == made["key_prefix"]
    assert event["data"]["apiKey"]["scopes"] == ["contacts:read", "issues:read"]
    assert made["api_key"] not in json.dumps(event)


def test_keys_create_legacy_records_a_legacy_key(
    workspace: WorkspaceFixture, api: GraphQLClient
) -> None:
    start = last_sequence(api)

    made = json_of(
        keys(
            workspace,
            "create",
            "--workspace",
            workspace.id,
            "--name",
            "old form",
            "--scopes",
            "issues:create",
            "--legacy",
            "--json",
        )
    )

    [event] = events_after(api, start)
    assert event["type"] == "api_key.created"
    assert event["data"]["apiKey"]["kind"] == "legacy"
    assert event["data"]["apiKey"]["scopes"] == ["issues:create"]
    assert made["api_key"] not in json.dumps(event)


def test_keys_revoke_records_api_key_revoked_by_the_system_once(
    workspace: WorkspaceFixture, api: GraphQLClient
) -> None:
    made = json_of(
        keys(
            workspace,
            "create",
            "--workspace",
            workspace.id,
            "--name",
            "ops",
            "--scopes",
            "issues:read",
            "--json",
        )
    )
    start = last_sequence(api)

    first = keys(workspace, "revoke", made["id"])
    second = keys(workspace, "revoke", made["id"])

    assert first.returncode == 0, first.stderr
    assert second.returncode == 0, second.stderr
    [event] = events_after(api, start)
    assert event["type"] == "api_key.revoked"
    assert event["actor"]["type"] == "system"
    assert event["data"]["apiKey"]["id"] == made["id"]
    assert event["data"]["apiKey"]["status"] == "revoked"
