"""`supportdesk members add`, against the running server's database: the member it adds
logs in over HTTP, with the password given or through the invitation link printed."""

from __future__ import annotations

import subprocess
from urllib.parse import urlsplit

from tests.cli.runner import json_of, operator_url, supportdesk
from tests.conftest import WorkspaceFixture, unique_email
from tests.graphql.members.helpers import MEMBERS
from tests.web.invitations import NEW_PASSWORD, choose_password
from tests.web.settings_client import SettingsClient

MISSING_WORKSPACE = "ws_01JD4Z1T8YQ0V5X2N7C3B6M9K4"


def add(workspace: WorkspaceFixture, *args: str) -> subprocess.CompletedProcess[str]:
    return supportdesk(
        "members",
        "add",
        "--base-url",
        workspace.server.base_url,
        *args,
        database_url=operator_url(workspace.server.database_url),
    )


def test_members_add_without_a_password_prints_a_link_that_logs_the_member_in(
    workspace: WorkspaceFixture,
) -> None:
    email = unique_email("roy")

    made = json_of(
        add(
            workspace,
            *("--workspace", workspace.id, "--email", email, "--name", "Roy"),
            *("--role", "agent", "--json"),
        )
    )

    assert set(made) == {"id", "email", "role", "invitation_url"}
    assert made["id"].startswith("mem_") and (made["email"], made["role"]) == (email, "agent")
    link = made["invitation_url"]
    assert link.startswith(f"{workspace.server.base_url}/invitations/{workspace.id}.")
    roy = SettingsClient(workspace.server.base_url)
    assert choose_password(roy, urlsplit(link).path).status_code == 303
    assert roy.get("/inbox/").status_code == 200
    members = workspace.client().ok(MEMBERS)["members"]["edges"]
    assert {"id": made["id"], "email": email, "name": "Roy", "role": "agent"} in [
        edge["node"] for edge in members
    ]


def test_members_add_with_a_password_prints_no_link(workspace: WorkspaceFixture) -> None:
    email = unique_email("jen")

    made = json_of(
        add(
            workspace,
            *("--workspace", workspace.id, "--email", email, "--role", "admin"),
            *("--password", NEW_PASSWORD, "--json"),
        )
    )
    text = add(
        workspace,
        *("--workspace", workspace.id, "--email", unique_email("moss"), "--role", "agent"),
    )

    assert made["invitation_url"] is None and made["role"] == "admin"
    jen = SettingsClient(workspace.server.base_url).logged_in(email, NEW_PASSWORD)
    assert jen.get("/settings/members").status_code == 200
    assert text.returncode == 0
    assert "Invitation  http://" in text.stdout and "Shown once" in text.stdout


def test_members_add_refuses_clearly_and_adds_nobody(workspace: WorkspaceFixture) -> None:
    def refused(*args: str) -> str:
        result = add(workspace, *args)
        assert result.returncode != 0, result.stdout
        assert "Traceback" not in result.stderr
        return result.stderr

    base = ("--workspace", workspace.id, "--email")
    taken = refused(*base, workspace.admin_email.upper(), "--role", "agent")
    bad_email = refused(*base, "not an address", "--role", "agent")
    bad_role = refused(*base, unique_email(), "--role", "owner")
    short = refused(*base, unique_email(), "--role", "agent", "--password", "short")
    nowhere = refused(
        "--workspace", MISSING_WORKSPACE, "--email", unique_email(), "--role", "agent"
    )

    assert "already belongs to this workspace" in taken
    assert "email: INVALID" in bad_email
    assert "'owner' is not one of 'agent', 'admin'" in bad_role
    assert "password: INVALID" in short
    assert f"Workspace {MISSING_WORKSPACE} not found." in nowhere
    edges = workspace.client().ok(MEMBERS)["members"]["edges"]
    assert [edge["node"]["email"] for edge in edges] == [workspace.admin_email]
