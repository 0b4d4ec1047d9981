"""docs/deploy.md as an operator follows it: its commands run here against PostgreSQL and
Redis (`supportdesk migrate`, then `supportdesk serve --workers 2`), its worker supervisor
survives a killed worker and drains on SIGTERM, and its backups restore."""

from __future__ import annotations

import asyncio
import json
import os
import re
import secrets
import shlex
import signal
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import asyncpg
import httpx
import pytest

from tests.client import GraphQLClient
from tests.conftest import REDIS_PREFIX
from tests.processes import ServeProcess, command_env, run_cli
from tests.servers import create_postgres_database, drop_postgres_database

pytestmark = pytest.mark.processes

DOC = Path(__file__).resolve().parents[2] / "docs" / "deploy.md"
CREATE_ISSUE = """mutation($input: CreateIssueInput!) {
  createIssue(input: $input) { issue { id ticketNumber } error { code } }
}"""


def fenced(language: str) -> list[str]:
    """The doc's code blocks in `language`."""
    return re.findall(rf"```{language}\n(.*?)```", DOC.read_text(), re.DOTALL)


def documented(command: str) -> list[list[str]]:
    """The doc's shell lines that run `command`, as arguments."""
    lines = [line.strip() for block in fenced("bash") for line in block.splitlines()]
    return [shlex.split(line) for line in lines if f"{line} ".startswith(f"{command} ")]


def without_options(arguments: list[str], *options: str) -> list[str]:
    """`arguments` less the given options and their values (the port and worker count the
    test chooses for this machine)."""
    kept: list[str] = []
    skip = False
    for argument in arguments:
        if skip:
            skip = False
        elif argument in options:
            skip = True
        else:
            kept.append(argument)
    return kept


def access_lines(serve: ServeProcess, path: str) -> list[dict[str, object]]:
    lines = [json.loads(line) for line in serve.stderr.splitlines() if line.startswith("{")]
    return [line for line in lines if line.get("path") == path]


@dataclass
class Deployment:
    database_url: str
    env: dict[str, str]
    serve: ServeProcess
    workspace_id: str
    key: str

    def client(self) -> GraphQLClient:
        return GraphQLClient(self.serve.base_url, self.key)


@pytest.fixture(scope="module")
def deployment(postgresql_url: str, redis_url: str) -> Iterator[Deployment]:
    """A fresh PostgreSQL database and a Redis prefix, set up by the doc's own commands."""
    database_url = create_postgres_database()
    env = command_env(
        database_url=database_url,
        redis_url=redis_url,
        rate_limit_prefix=f"{REDIS_PREFIX}:{secrets.token_hex(4)}",
        db_pool_size="4",
    )
    try:
        [migrate] = documented("supportdesk migrate")
        run_cli(env, *migrate[1:])
        made = json.loads(
            run_cli(env, "init", "--workspace", "Deployed", "--admin-email", "ops@x.test", "--json")
        )
        [serve] = documented("supportdesk serve")
        assert serve[:2] == ["supportdesk", "serve"]
        rest = without_options(serve[2:], "--port", "--workers")
        process = ServeProcess(env, workers=2, arguments=tuple(rest)).start()
        try:
            yield Deployment(
                database_url, env, process.wait_ready(), made["workspace_id"], made["api_key"]
            )
        finally:
            process.stop()
    finally:
        drop_postgres_database(database_url)


def test_the_documented_commands_serve_a_ready_service_with_two_workers(
    deployment: Deployment,
) -> None:
    ready = httpx.get(f"{deployment.serve.base_url}/readyz")
    created = deployment.client().ok(
        CREATE_ISSUE, {"input": {"subject": "Hi", "body": "Hello", "requesterEmail": "a@x.test"}}
    )

    assert ready.status_code == 200
    assert ready.json() == {"status": "ok", "checks": {"database": "ok", "redis": "ok"}}
    assert created["createIssue"]["issue"]["ticketNumber"] == 1
    assert len(deployment.serve.worker_pids()) == 2


def test_new_connections_are_spread_over_the_workers(deployment: Deployment) -> None:
    """Each worker has a socket of its own on the port: new connections reach both."""
    workers = set(deployment.serve.worker_pids())
    for _ in range(40):
        with httpx.Client(base_url=deployment.serve.base_url) as fresh:
            assert fresh.get("/healthz", headers={"X-Request-Id": "spread"}).status_code == 200
    served_by = {
        line["pid"]
        for line in access_lines(deployment.serve, "/healthz")
        if line["request_id"] == "spread"
    }
    assert served_by == workers


def _gone(pid: int) -> bool:
    """Exited: no such process, or a zombie (its sockets are closed already)."""
    try:
        return "\nState:\tZ" in Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return True


def test_a_killed_worker_is_replaced_while_the_other_keeps_answering(
    deployment: Deployment,
) -> None:
    serve = deployment.serve
    killed, survivor = serve.worker_pids()
    os.kill(killed, signal.SIGKILL)
    deadline = time.monotonic() + 60
    while not _gone(killed):
        assert time.monotonic() < deadline
        time.sleep(0.01)

    statuses = []
    while True:  # new connections, until the replacement has answered one of them
        with httpx.Client(base_url=serve.base_url) as fresh:
            statuses.append(fresh.get("/readyz", headers={"X-Request-Id": "replaced"}).status_code)
        workers = serve.worker_pids()
        answered_by = {line["pid"] for line in access_lines(serve, "/readyz")
                       if line["request_id"] == "replaced"}  # fmt: skip
        if len(workers) == 2 and answered_by - {survivor}:
            break
        assert time.monotonic() < deadline, (workers, answered_by)
        time.sleep(0.05)

    assert set(statuses) == {200}
    assert survivor in workers and killed not in workers
    assert answered_by - {survivor} <= set(workers)


def test_sigterm_lets_the_request_in_flight_finish_then_exits_cleanly(
    deployment: Deployment,
) -> None:
    """A createIssue waits on a lock the test holds on the workspace's ticket counter; the
    supervisor gets SIGTERM; the idle worker leaves; the lock goes; the request still
    succeeds and every process exits with 0."""
    serve = deployment.serve
    variables = {"input": {"subject": "Late", "body": "Still here", "requesterEmail": "l@x.test"}}

    async def scenario() -> dict[str, object]:
        holder = await asyncpg.connect(deployment.database_url)
        try:
            transaction = holder.transaction()
            await transaction.start()
            await holder.execute(
                "SELECT 1 FROM workspaces WHERE id = $1 FOR UPDATE", deployment.workspace_id
            )
            in_flight = asyncio.get_running_loop().run_in_executor(
                None, lambda: deployment.client()(CREATE_ISSUE, variables)
            )
            deadline = time.monotonic() + 30
            while not await holder.fetchval(
                "SELECT count(*) FROM pg_stat_activity"
                " WHERE datname = current_database() AND wait_event_type = 'Lock'"
            ):
                assert time.monotonic() < deadline, "the request never reached the lock"
                await asyncio.sleep(0.02)
            serve.terminate()
            while len(serve.worker_pids()) > 1:  # both told to stop; the idle one is gone
                assert time.monotonic() < deadline, "SIGTERM did not reach the workers"
                await asyncio.sleep(0.02)
            await transaction.rollback()
            answer = await in_flight
        finally:
            await holder.close()
        return {"status": answer.status, "data": answer.data}

    answer = asyncio.run(scenario())
    exit_code = serve.process.wait(timeout=30)  # type: ignore[union-attr]

    assert answer["status"] == 200
    assert answer["data"]["createIssue"]["error"] is None  # type: ignore[index]
    assert exit_code == 0
    assert serve.worker_pids() == []
