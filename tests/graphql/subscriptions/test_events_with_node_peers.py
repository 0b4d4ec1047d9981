"""The subscription with real peers: the npm packages graphql-ws (with ws) and graphql-sse
subscribe from Node (peers/subscribe.mjs) while issues are created through the API; what
they receive is in sequence order, with no gap, and only what the key may read."""

from __future__ import annotations

import fcntl
import json
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import WorkspaceFixture
from tests.graphql.subscriptions.clients import SseSubscription
from tests.rest.client import RestClient
from tests.rest.test_event_stream import last_sequence
from tests.servers import IN_CI

PEERS = Path(__file__).resolve().parent / "peers"
TRANSPORTS = ["ws", "sse"]


@pytest.fixture(scope="session")
def node() -> str:
    """Node, with the peers installed from the lock file (peers/node_modules, never
    committed)."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        if IN_CI:
            pytest.fail("Node and npm are needed for the subscription peers")
        pytest.skip("Node and npm are needed for the subscription peers")
    # Each test worker has this fixture; `npm ci` empties node_modules first, so one
    # worker's install would pull the packages from under another's peer: one at a time.
    with (Path(tempfile.gettempdir()) / "supportdesk-node-peers.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (PEERS / "node_modules" / "graphql-sse" / "package.json").exists():
            subprocess.run(
                [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
                cwd=PEERS,
                check=True,
                timeout=300,
            )
    return node


def subscribe(
    node: str, transport: str, base_url: str, key: str, after: int, count: int
) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [node, str(PEERS / "subscribe.mjs"), transport, base_url, key, str(after), str(count)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def received(peer: subprocess.Popen[str]) -> list[dict[str, Any]]:
    out, err = peer.communicate(timeout=20)
    assert peer.returncode == 0, (out, err)
    return [json.loads(line) for line in out.splitlines()]


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_peer_receives_every_event_in_order_with_no_gap(
    workspace: WorkspaceFixture, node: str, transport: str
) -> None:
    rest = RestClient(workspace.server.base_url, workspace.key)
    start = last_sequence(workspace)
    rest.created(subject="Before the peer")  # contact.created, issue.created: from the log
    peer = subscribe(node, transport, workspace.server.base_url, workspace.key, start, 5)
    time.sleep(0.5)  # most of what follows arrives live
    for subject in ("First live", "Second live", "Third live"):
        rest.created(subject=subject)

    events = received(peer)

    assert [e["sequence"] for e in events] == list(range(start + 1, start + 6))
    assert [e["type"] for e in events] == ["contact.created"] + ["issue.created"] * 4
    subjects = [e["data"]["issue"]["subject"] for e in events[1:]]
    assert subjects == ["Before the peer", "First live", "Second live", "Third live"]


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_peer_sees_only_what_its_key_may_read(
    workspace: WorkspaceFixture, node: str, transport: str
) -> None:
    rest = RestClient(workspace.server.base_url, workspace.key)
    contacts_only = workspace.create_key(["contacts:read"])
    start = last_sequence(workspace)
    peer = subscribe(node, transport, workspace.server.base_url, contacts_only, start, 2)
    time.sleep(0.5)
    rest.created(subject="One", requester_email="first@example.com")
    rest.created(subject="Two", requester_email="second@example.com")

    events = received(peer)

    # Sequences start + 2 and + 4 are the issues, which this key may not read.
    assert [e["type"] for e in events] == ["contact.created", "contact.created"]
    assert [e["sequence"] for e in events] == [start + 1, start + 3]
    assert [e["data"]["contact"]["email"] for e in events] == [
        "first@example.com",
        "second@example.com",
    ]


def test_a_graphql_ws_peer_with_a_wrong_key_is_refused(
    workspace: WorkspaceFixture, node: str
) -> None:
    wrong = workspace.key[:-4] + "zzzz"
    peer = subscribe(node, "ws", workspace.server.base_url, wrong, 0, 1)
    out, _ = peer.communicate(timeout=20)
    assert peer.returncode == 1
    assert json.loads(out) == {"error": {"code": 4403, "reason": "Forbidden"}}


def test_the_node_peers_share_the_keys_ten_streams_with_sse(
    workspace: WorkspaceFixture, node: str
) -> None:
    key = workspace.create_key(["issues:read"])
    base = workspace.server.base_url
    held = [SseSubscription(base, key) for _ in range(10)]
    try:
        assert [s.status for s in held] == [200] * 10
        peer = subscribe(node, "ws", base, key, last_sequence(workspace), 1)
        out, _ = peer.communicate(timeout=20)
        assert peer.returncode == 1
        assert json.loads(out)["error"][0]["extensions"]["code"] == "LIMIT_REACHED", out
    finally:
        for stream in held:
            stream.close()
