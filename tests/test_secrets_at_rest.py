"""Secrets are shown once and kept nowhere: not in the database, not in the logs.
Admin passwords are kept only as Argon2id hashes (CONTRACT section 9); invitation links
only as the SHA-256 of their secret part, and the passwords chosen through them as hashes."""

from __future__ import annotations

import asyncio
import logging
import subprocess
from pathlib import Path

import pytest
from sqlalchemy import select, text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import create_async_engine

from supportdesk.auth.keys import hash_secret
from supportdesk.db.tables import metadata, org_admins
from tests import factories
from tests.cli.runner import json_of, operator_url, supportdesk
from tests.conftest import WorkspaceFixture
from tests.graphql.mailboxes.helpers import new_mailbox
from tests.servers import RunningServer
from tests.web.invitations import NEW_PASSWORD, choose_password
from tests.web.settings_client import SettingsClient

PASSWORD = "correct horse battery"  # the workspace fixture's admin password


def stored_text(server: RunningServer) -> str:
    """Everything the database holds, as text: the file bytes for SQLite, every row of
    every table for PostgreSQL."""
    if server.backend == "sqlite":
        database = Path(str(make_url(server.database_url).database))
        files = sorted(database.parent.glob(database.name + "*"))  # the file, -wal, -shm
        assert database in files
        # Read by another process: closing a file of our own on the database would drop
        # every POSIX lock this process (the in-thread server) holds on it, and the next
        # process to close its connection would take itself for the last one and remove
        # the WAL under the server: "database disk image is malformed".
        read = subprocess.run(["cat", *map(str, files)], capture_output=True, check=True)
        return read.stdout.decode("latin-1")

    # A connection of our own: reading every workspace's rows is what the server never does.
    async def dump() -> str:
        engine = create_async_engine(server.settings.database_url)
        rows: list[str] = []
        try:
            async with engine.connect() as connection:
                for table in metadata.sorted_tables:
                    result = await connection.execute(text(f'SELECT * FROM "{table.name}"'))
                    rows.extend(repr(tuple(row)) for row in result)
        finally:
            await engine.dispose()
        return "\n".join(rows)

    return asyncio.run(dump())


def test_no_secret_is_in_the_database_or_the_logs(
    workspace: WorkspaceFixture, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    caplog.set_level(logging.DEBUG, logger="sqlalchemy.engine")
    api = workspace.client()
    owner = factories.machine_user(api, "Secret keeper")["id"]
    made = factories.api_key(api, owner, ["issues:read"])
    secret = made["secret"]
    client = api.with_key(secret)
    client.ok("{ apiInfo }")
    refused = client("{ machineUsers { totalCount } }")  # FORBIDDEN
    bad = client("{ issues(first: 500) { totalCount } }")  # BAD_USER_INPUT
    api.ok(factories.REVOKE_API_KEY, {"id": made["apiKey"]["id"]})
    after_revoke = client("{ apiInfo }")  # 401 revoked
    cli_key = json_of(
        supportdesk(
            "keys",
            "create",
            "--workspace",
            workspace.id,
            "--name",
            "cli",
            "--scopes",
            "issues:read",
            "--json",
            database_url=operator_url(workspace.server.database_url),
        )
    )["api_key"]
    legacy_key = json_of(
        supportdesk(
            "keys",
            "create",
            "--workspace",
            workspace.id,
            "--name",
            "old",
            "--legacy",
            "--json",
            database_url=operator_url(workspace.server.database_url),
        )
    )["api_key"]
    invite = 'mutation($email: String) { createMember(input: {email: $email, role: "agent"}) { invitationUrl } }'
    api_link = api.ok(invite, {"email": "api-invited@example.com"})["createMember"]["invitationUrl"]
    cli_link = json_of(
        supportdesk(
            "members",
            "add",
            *("--workspace", workspace.id, "--email", "cli-invited@example.com"),
            *("--role", "agent", "--json"),
            database_url=operator_url(workspace.server.database_url),
        )
    )["invitation_url"]
    # One link is used (its page and its POST pass through the logs), one is not.
    used_path = "/invitations/" + api_link.split("/invitations/")[1]
    assert choose_password(SettingsClient(workspace.server.base_url), used_path).status_code == 303
    links = [link.split("/invitations/")[1] for link in (api_link, cli_link)]
    link_secrets = [link.split(".", 1)[1] for link in links]
    secrets = [workspace.key, secret, cli_key, legacy_key]

    stored = stored_text(workspace.server)
    logs = caplog.text + "".join(str(record.__dict__) for record in caplog.records)

    # The rows are there (by their hash and prefix); the secrets are not.
    assert hash_secret(secret) in stored and made["apiKey"]["keyPrefix"] in stored
    for each in secrets:
        assert each not in stored
        assert each[12:] not in stored  # not even the part after the shown prefix
    # The test's own HTTP client logs the addresses it opens; the server's logs are the rest.
    served = [r for r in caplog.records if not r.name.startswith(("httpx", "httpcore"))]
    server_logs = "".join(r.getMessage() + str(r.__dict__) for r in served)
    for each in link_secrets:
        assert hash_secret(each) in stored  # the link's row, by the hash of its secret
        assert each not in stored and each not in server_logs
    assert NEW_PASSWORD not in stored and NEW_PASSWORD not in logs
    # The logs were captured (the revoked key's refusal is in them); the secrets are not.
    assert "'status': 401" in logs
    assert "/invitations/…" in logs
    for each in secrets:
        assert each[12:] not in logs
    for answer in (refused, bad, after_revoke):
        assert secret[12:] not in str(answer.body) + str(answer.headers)


def test_admin_passwords_are_argon2id_hashes(workspace: WorkspaceFixture) -> None:
    async def hashes() -> list[str]:
        async with workspace.server.db.read() as connection:
            query = select(org_admins.c.password_hash).where(
                org_admins.c.workspace_id == workspace.id
            )
            return list((await connection.scalars(query)).all())

    [stored_hash] = workspace.server.call(hashes())

    assert stored_hash.startswith("$argon2id$")
    assert PASSWORD not in stored_text(workspace.server)


def test_mailbox_tokens_and_imap_passwords_are_kept_nowhere(
    workspace: WorkspaceFixture, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    caplog.set_level(logging.DEBUG, logger="sqlalchemy.engine")
    api = workspace.client()
    password = "imap-Pa55word-" + workspace.id[-8:]
    made = new_mailbox(api, imapUrl=f"imaps://desk%40acme.test:{password}@imap.example.com/INBOX")
    token = made["inboundToken"]
    rotated = api.ok(
        "mutation($id: ID!) { rotateMailboxToken(id: $id) { inboundToken } }",
        {"id": made["mailbox"]["id"]},
    )["rotateMailboxToken"]["inboundToken"]

    stored = stored_text(workspace.server)
    logs = caplog.text + "".join(str(record.__dict__) for record in caplog.records)

    assert hash_secret(rotated) in stored
    for each in (token[12:], rotated[12:], password):
        assert each not in stored and each not in logs
