"""`supportdesk dispatch` delivers alone, in a process of its own, and `supportdesk
secret-key` prints a server key."""

from __future__ import annotations

import asyncio
import base64
import json
import signal
import subprocess
import time
from pathlib import Path

from standardwebhooks.webhooks import Webhook

from supportdesk.auth.secret_box import SecretBox, new_server_key
from supportdesk.config import normalise_database_url
from supportdesk.db import Database
from supportdesk.domain.audit import CLI_ACTOR
from supportdesk.domain.events import record_events
from supportdesk.domain.webhooks.endpoints import EndpointPolicy, create_endpoint
from tests.dispatch.receiver import Receiver
from tests.processes import SUPPORTDESK, command_env, run_cli


def test_secret_key_prints_a_fresh_32_byte_key() -> None:
    env = command_env()
    first, second = run_cli(env, "secret-key").strip(), run_cli(env, "secret-key").strip()

    assert len(base64.urlsafe_b64decode(first + "=")) == 32
    assert first != second


async def _endpoint(url: str, workspace_id: str, key: str, receiver_url: str) -> str:
    db = Database(url, 1)
    try:
        created = await create_endpoint(
            db,
            CLI_ACTOR,
            workspace_id,
            SecretBox([key]),
            EndpointPolicy(allow_private=True),
            url=receiver_url,
            event_types=["contact.created"],
        )
        return created.secret
    finally:
        await db.dispose()


async def _commit_an_event(url: str, workspace_id: str) -> float:
    """Record a contact.created in another process's transaction; when it committed."""
    db = Database(url, 1)
    try:
        async with db.transaction() as connection:
            await record_events(connection, workspace_id, CLI_ACTOR, [("contact.created", {})])
        return time.monotonic()
    finally:
        await db.dispose()


def test_dispatch_delivers_what_other_processes_commit_until_sigterm(
    fresh_database: str, receiver: Receiver, tmp_path: Path
) -> None:
    key = new_server_key()
    env = command_env(database_url=fresh_database, secret_key=key, webhook_allow_private="true")
    made = json.loads(
        run_cli(env, "init", "--workspace", "Hooks", "--admin-email", "a@example.com", "--json")
    )
    url = normalise_database_url(fresh_database)
    workspace_id = made["workspace_id"]
    secret = asyncio.run(_endpoint(url, workspace_id, key, receiver.url))
    log = tmp_path / "dispatch.log"
    with log.open("w") as stderr:
        dispatcher = subprocess.Popen([str(SUPPORTDESK), "dispatch"], env=env, stderr=stderr)
    try:
        asyncio.run(_commit_an_event(url, workspace_id))
        [first] = receiver.wait_for(1, timeout=20)  # once the process is up

        committed = asyncio.run(_commit_an_event(url, workspace_id))

        second = receiver.wait_for(2)[1]
        for request in (first, second):
            assert (
                Webhook(secret).verify(request.body, request.headers)["type"] == "contact.created"
            )
        # Seen by polling (another process committed): still well within a second.
        print(
            f"\nanother process's commit → first attempt: {(second.at - committed) * 1000:.0f} ms"
        )
        assert second.at - committed < 1.0
    finally:
        dispatcher.send_signal(signal.SIGTERM)
        assert dispatcher.wait(timeout=15) == 0, log.read_text()
    assert "delivering webhooks" in log.read_text()
