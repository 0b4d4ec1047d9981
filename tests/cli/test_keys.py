"""`supportdesk keys create|list|revoke`, against the running server's database, so the
keys they make are tried over HTTP."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.cli.runner import json_of, operator_url, supportdesk
from tests.conftest import WorkspaceFixture

MISSING_WORKSPACE = "ws_01JD4Z1T8YQ0V5X2N7C3B6M9K4"


def keys(workspace: WorkspaceFixture, *args: str) -> subprocess.CompletedProcess[str]:
    return supportdesk("keys", *args, database_url=operator_url(workspace.server.database_url))


def create(workspace: WorkspaceFixture, *args: str) -> dict[str, str]:
    return json_of(
        keys(workspace, "create", "--workspace", workspace.id, "--name", "ops", *args, "--json")
    )


def test_keys_create_makes_a_working_key_of_the_managed_machine_user(
    workspace: WorkspaceFixture,
) -> None:
    made = create(workspace, "--scopes", "issues:write,issues:read, issues:read")

    assert set(made) == {"id", "api_key", "key_prefix", "scopes"}
    assert made["id"].startswith("key_")
    assert re.fullmatch(r"svc_mk_[0-9A-Za-z]{38}", made["api_key"])
    assert made["key_prefix"] == made["api_key"][:12]
    assert made["scopes"] == ["issues:read", "issues:write"]
    info = workspace.client(made["api_key"]).ok("{ apiInfo }")["apiInfo"]
    assert info["key"]["id"] == made["id"]
    assert info["key"]["scopes"] == ["issues:read", "issues:write"]
    owner = workspace.client().ok(
        "query($id: ID!) { node(id: $id) { ... on ApiKey { machineUser { managed } } } }",
        {"id": made["id"]},
    )["node"]["machineUser"]
    assert owner == {"managed": True}


def test_keys_list_shows_every_key_as_json_or_text(workspace: WorkspaceFixture) -> None:
    made = create(workspace, "--scopes", "issues:read")

    listed = json_of(keys(workspace, "list", "--workspace", workspace.id, "--json"))
    text = keys(workspace, "list", "--workspace", workspace.id)

    assert [key["key_prefix"] for key in listed] == [workspace.key[:12], made["key_prefix"]]
    assert listed[1] == {
        "id": made["id"],
        "name": "ops",
        "key_prefix": made["key_prefix"],
        "scopes": ["issues:read"],
        "kind": "standard",
        "status": "active",
    }
    lines = text.stdout.strip().splitlines()
    assert len(lines) == 2
    assert lines[1].startswith(made["id"]) and "active" in lines[1] and "ops" in lines[1]
    assert made["api_key"] not in text.stdout


def test_keys_revoke_stops_the_key_on_its_next_request(workspace: WorkspaceFixture) -> None:
    made = create(workspace, "--scopes", "issues:read")
    client = workspace.client(made["api_key"])
    client.ok("{ apiInfo }")

    result = keys(workspace, "revoke", made["id"])

    assert result.returncode == 0, result.stderr
    assert f"{made['id']} revoked at" in result.stdout
    answer = client("{ apiInfo }")
    assert answer.status == 401
    assert answer.errors[0]["extensions"]["reason"] == "revoked"
    listed = json_of(keys(workspace, "list", "--workspace", workspace.id, "--json"))
    assert [k["status"] for k in listed if k["id"] == made["id"]] == ["revoked"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--scopes", "issues:read,issues:delete"], "Unknown scopes: issues:delete"),
        (["--scopes", ""], "scopes: REQUIRED"),
    ],
)
def test_keys_create_refuses_bad_scopes_clearly(
    workspace: WorkspaceFixture, args: list[str], message: str
) -> None:
    result = keys(workspace, "create", "--workspace", workspace.id, "--name", "x", *args)

    assert result.returncode != 0
    assert message in result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize(
    "args",
    [
        ["create", "--workspace", MISSING_WORKSPACE, "--name", "x", "--scopes", "issues:read"],
        ["list", "--workspace", MISSING_WORKSPACE, "--json"],
    ],
)
def test_an_unknown_workspace_is_refused_clearly(
    workspace: WorkspaceFixture, args: list[str]
) -> None:
    result = keys(workspace, *args)

    assert result.returncode != 0
    assert f"Workspace {MISSING_WORKSPACE} not found" in result.stderr
    assert result.stdout == ""


def test_revoking_an_unknown_key_is_refused_clearly(workspace: WorkspaceFixture) -> None:
    result = keys(workspace, "revoke", "key_01JD4Z1T8YQ0V5X2N7C3B6M9K4")

    assert result.returncode != 0
    assert "API key not found" in result.stderr


def test_keys_on_a_database_that_was_never_set_up_say_what_to_do(tmp_path: Path) -> None:
    result = supportdesk(
        "keys", "list", "--workspace", "ws_x", database_url=f"sqlite:///{tmp_path / 'empty.db'}"
    )

    assert result.returncode != 0
    assert "supportdesk migrate" in result.stderr
    assert "Traceback" not in result.stderr
