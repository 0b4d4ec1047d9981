"""The single process's guarantees hold across several processes (CONTRACT sections 1, 7, 9):
revocation on the very next request everywhere, one rate limit per key, gap-free ticket
numbers, `lastUsedAt` written once a minute per key."""

from __future__ import annotations

import asyncio
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from supportdesk.config import Settings
from tests.processes import run_cli
from tests.scale.conftest import PROCESSES, RATE_LIMIT, Cluster

pytestmark = pytest.mark.processes

API_INFO = "{ apiInfo }"
REVOKE = "mutation($id: ID!) { revokeApiKey(id: $id) { apiKey { status } error { code } } }"
CREATE_ISSUE = """mutation($input: CreateIssueInput!) {
  createIssue(input: $input) { issue { id ticketNumber } error { code message } }
}"""


def reason(answer: object) -> tuple[int, str]:
    status: int = answer.status  # type: ignore[attr-defined]
    errors = answer.errors  # type: ignore[attr-defined]
    return status, errors[0]["extensions"].get("reason") if errors else "none"


def test_a_key_revoked_through_one_process_is_refused_by_all_the_others(
    cluster: Cluster,
) -> None:
    workspace_id, admin = cluster.workspace()
    key = cluster.create_key(workspace_id, ["issues:read"])
    clients = cluster.clients(key)
    # Every process has just accepted the key: any cache it kept would now hold it.
    assert [c(API_INFO).status for c in clients] == [200] * PROCESSES

    revoked = cluster.clients(admin)[0].ok(REVOKE, {"id": key.id})
    after = [reason(c(API_INFO)) for c in clients]

    assert revoked["revokeApiKey"] == {"apiKey": {"status": "revoked"}, "error": None}
    assert after == [(401, "revoked")] * PROCESSES


def test_a_key_revoked_by_the_cli_is_refused_by_every_process(cluster: Cluster) -> None:
    workspace_id, _ = cluster.workspace()
    key = cluster.create_key(workspace_id, ["issues:read"])
    clients = cluster.clients(key)
    assert [c(API_INFO).status for c in clients] == [200] * PROCESSES

    run_cli(cluster.env, "keys", "revoke", key.id)

    assert [reason(c(API_INFO)) for c in clients] == [(401, "revoked")] * PROCESSES


def test_the_default_rate_limit_is_600_a_minute() -> None:
    """The groups here run with a limit of RATE_LIMIT so the tests are quick; what they show
    holds for the default, which is this."""
    assert Settings.model_fields["rate_limit_per_minute"].default == 600
    assert RATE_LIMIT < 600


@pytest.mark.parametrize("last", range(PROCESSES))
def test_the_limit_plus_first_request_is_refused_whichever_process_takes_it(
    cluster: Cluster, last: int
) -> None:
    workspace_id, _ = cluster.workspace()
    key = cluster.create_key(workspace_id, ["issues:read"])
    clients = cluster.clients(key)
    # RATE_LIMIT requests spread over every process, ending just before process `last`.
    order = [(last + 1 + i) % PROCESSES for i in range(RATE_LIMIT)]

    spent = [clients[p](API_INFO) for p in order]
    refused = clients[last](API_INFO)

    assert [a.status for a in spent] == [200] * RATE_LIMIT
    assert [int(a.headers["x-ratelimit-remaining"]) for a in spent] == list(
        range(RATE_LIMIT - 1, -1, -1)
    )
    assert refused.status == 429
    assert refused.codes == ["RATE_LIMITED"]
    assert refused.headers["x-ratelimit-limit"] == str(RATE_LIMIT)
    assert [c(API_INFO).status for c in clients] == [429] * PROCESSES


async def _create_issues(cluster: Cluster, secrets: list[str], count: int) -> list[dict]:  # type: ignore[type-arg]
    """`count` createIssue calls at once, spread over the processes and the keys."""
    limits = httpx.Limits(max_connections=count)
    clients = [
        httpx.AsyncClient(base_url=p.base_url, timeout=120, limits=limits)
        for p in cluster.processes
    ]

    async def one(i: int) -> dict:  # type: ignore[type-arg]
        variables = {
            "input": {"subject": f"Issue {i}", "body": "Hello", "requesterEmail": f"r{i}@x.test"}
        }
        response = await clients[i % PROCESSES].post(
            "/graphql",
            json={"query": CREATE_ISSUE, "variables": variables},
            headers={"Authorization": f"Bearer {secrets[i % len(secrets)]}"},
        )
        assert response.status_code == 200, response.text
        payload: dict = response.json()["data"]["createIssue"]  # type: ignore[type-arg]
        return payload

    try:
        return await asyncio.gather(*(one(i) for i in range(count)))
    finally:
        for client in clients:
            await client.aclose()


def test_concurrent_create_issue_calls_over_every_process_get_consecutive_ticket_numbers(
    cluster: Cluster,
) -> None:
    count = 200
    workspace_id, _ = cluster.workspace()
    # Enough keys that none of them reaches the rate limit.
    keys = [
        cluster.create_key(workspace_id, ["issues:create"]).secret
        for _ in range(-(-count // (RATE_LIMIT // 2)))
    ]

    payloads = asyncio.run(_create_issues(cluster, keys, count))

    assert [p["error"] for p in payloads] == [None] * count
    numbers = sorted(p["issue"]["ticketNumber"] for p in payloads)
    assert numbers == list(range(1, count + 1))
    assert len({p["issue"]["id"] for p in payloads}) == count
    [(stored,)] = cluster.sql(
        f"SELECT last_ticket_number FROM workspaces WHERE id = '{workspace_id}'"
    )
    assert stored == count


def test_last_used_at_is_written_once_a_minute_across_processes(cluster: Cluster) -> None:
    workspace_id, _ = cluster.workspace()
    key = cluster.create_key(workspace_id, ["issues:read"])
    clients = cluster.clients(key)

    # Each round reaches every process at once: each sees the key unused and tries a write.
    with ThreadPoolExecutor(PROCESSES) as pool:
        for _ in range(5):
            assert list(pool.map(lambda c: c(API_INFO).status, clients)) == [200] * PROCESSES

    def writes() -> int:
        [(count,)] = cluster.sql(
            f"SELECT count(*) FROM test_last_used_writes WHERE key_id = '{key.id}'"
        )
        return int(count)  # type: ignore[call-overload]

    deadline = time.monotonic() + 10
    while writes() == 0:  # the write follows the answer
        assert time.monotonic() < deadline, "lastUsedAt was never written"
        time.sleep(0.05)
    # A process writes while it answers: by its next answer, its write has run.
    for client in clients:
        assert client(API_INFO).status == 200
    assert writes() == 1
