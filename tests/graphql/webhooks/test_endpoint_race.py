"""An endpoint that another writer turns on while a mutation waits for the workspace's
lock gets that mutation's events: its events come after the endpoint's own in the log,
so they are queued for it, though the mutation's statement began before it existed
(domain/events/log.py, `EventCounter`)."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from collections.abc import Callable
from typing import Any

import asyncpg
import pytest
from sqlalchemy.engine import make_url

from tests.client import GraphQLClient
from tests.conftest import WorkspaceFixture
from tests.graphql.issues.helpers import new_issue
from tests.graphql.webhooks.helpers import new_endpoint

DELIVERIES = """query { webhookEndpoints { edges { node { id
  deliveries { edges { node { eventType } } } } } } }"""

# What a writer that adds an endpoint does to the workspace row: it holds the row's lock
# and moves the event counter (its own event) and the webhook generation, then turns the
# endpoint on.
MOVE_COUNTER = (
    "UPDATE workspaces SET last_event_sequence = last_event_sequence + 1, "
    "webhook_generation = webhook_generation + 1 WHERE id = "
)
TURN_ON = "UPDATE webhook_endpoints SET enabled = true WHERE workspace_id = "


def _while_holding_the_workspace(workspace: WorkspaceFixture, endpoint_id: str, work: Any) -> Any:
    """Runs `work()` while another connection holds the workspace row, having moved its
    counter and turned the endpoint on; commits that after `work` has waited a while."""
    done: dict[str, Any] = {}
    waiting = threading.Thread(target=lambda: done.setdefault("result", work()))
    url = make_url(workspace.server.database_url)
    if url.get_backend_name() == "sqlite":
        holder = sqlite3.connect(url.database or "", isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
        holder.execute(MOVE_COUNTER + "?", (workspace.id,))
        holder.execute(TURN_ON + "? AND id = ?", (workspace.id, endpoint_id))
        waiting.start()
        time.sleep(0.5)
        holder.execute("COMMIT")
        holder.close()
    else:
        asyncio.run(_hold_postgres(url, workspace.id, endpoint_id, waiting))
    waiting.join(timeout=30)
    return done["result"]


async def _hold_postgres(url: Any, workspace_id: str, endpoint_id: str, waiting: Any) -> None:
    dsn = url.set(drivername="postgresql").render_as_string(hide_password=False)
    holder = await asyncpg.connect(dsn)
    try:
        async with holder.transaction():
            await holder.execute(MOVE_COUNTER + "$1", workspace_id)
            await holder.execute(TURN_ON + "$1 AND id = $2", workspace_id, endpoint_id)
            waiting.start()
            await asyncio.sleep(0.5)
    finally:
        await holder.close()


CREATE_CONTACT = """mutation($input: CreateContactInput!) {
  createContact(input: $input) { contact { id } error { code } } }"""


def _new_contact(api: GraphQLClient) -> dict[str, Any]:
    made = api.ok(CREATE_CONTACT, {"input": {"email": "racer@example.com"}})["createContact"]
    assert made["error"] is None
    return dict(made["contact"])


@pytest.mark.parametrize(
    ("event_type", "write"),
    [
        # The ticket number's statement moves the event counter too.
        ("issue.created", new_issue),
        # The event log's own statement moves it.
        ("contact.created", _new_contact),
    ],
)
def test_an_endpoint_turned_on_while_a_write_waits_gets_its_events(
    workspace: WorkspaceFixture, event_type: str, write: Callable[[GraphQLClient], Any]
) -> None:
    api = workspace.client()
    endpoint = new_endpoint(api, enabled=False, eventTypes=[event_type])["webhookEndpoint"]

    written = _while_holding_the_workspace(workspace, endpoint["id"], lambda: write(api))

    assert written["id"]
    [node] = [edge["node"] for edge in api.ok(DELIVERIES)["webhookEndpoints"]["edges"]]
    assert [d["node"]["eventType"] for d in node["deliveries"]["edges"]] == [event_type]


UPDATE_ENDPOINT = """mutation($input: UpdateWebhookEndpointInput!) {
  updateWebhookEndpoint(input: $input) { webhookEndpoint { id enabled } error { code } } }"""
DELETE_ENDPOINT = """mutation($id: ID!) {
  deleteWebhookEndpoint(id: $id) { webhookEndpoint { id } error { code } } }"""


def _generation(workspace: WorkspaceFixture) -> int:
    url = make_url(workspace.server.database_url)
    query = "SELECT webhook_generation FROM workspaces WHERE id = "
    if url.get_backend_name() == "sqlite":
        with sqlite3.connect(url.database or "") as reader:
            return int(reader.execute(query + "?", (workspace.id,)).fetchone()[0])

    async def read() -> int:
        dsn = url.set(drivername="postgresql").render_as_string(hide_password=False)
        reader = await asyncpg.connect(dsn)
        try:
            return int(await reader.fetchval(query + "$1", workspace.id))
        finally:
            await reader.close()

    return asyncio.run(read())


def test_every_endpoint_change_moves_the_webhook_generation(workspace: WorkspaceFixture) -> None:
    api = workspace.client()
    seen = [_generation(workspace)]

    endpoint = new_endpoint(api)["webhookEndpoint"]
    seen.append(_generation(workspace))
    changed = api.ok(UPDATE_ENDPOINT, {"input": {"id": endpoint["id"], "enabled": False}})
    assert changed["updateWebhookEndpoint"]["error"] is None
    seen.append(_generation(workspace))
    new_issue(api)  # not an endpoint's change
    seen.append(_generation(workspace))
    assert api.ok(DELETE_ENDPOINT, {"id": endpoint["id"]})["deleteWebhookEndpoint"]["error"] is None
    seen.append(_generation(workspace))

    start = seen[0]
    assert seen == [start, start + 1, start + 2, start + 2, start + 3]
