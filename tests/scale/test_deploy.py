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
import shutil
import signal
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import asyncpg
import httpx
import pytest

from supportdesk.config import normalise_database_url
from tests.client import GraphQLClient
from tests.conftest import REDIS_PREFIX
from tests.db.inspection import inspected
from tests.processes import ServeProcess, command_env, run_cli
from tests.servers import create_postgres_database, drop_postgres_database
from tests.tenancy import TENANT_TABLES, table_shapes

pytestmark = pytest.mark.processes

DOC = Path(__file__).resolve().parents[2] / "docs" / "deploy.md"
CREATE_ISSUE = """mutation($input: CreateIssueInput!) {
  createIssue(input: $input) { issue { id ticketNumber } error { code } }
}"""


def fenced(language: str) -> list[str]:
    """The doc's code blocks in `language`."""
    return re.findall(rf"```{language}\n(.*?)```", DOC.read_text(), re.DOTALL)


def documented_lines(command: str) -> list[str]:
    """The doc's shell lines that run `command`."""
    lines = [line.strip() for block in fenced("bash") for line in block.splitlines()]
    return [line for line in lines if f"{line} ".startswith(f"{command} ")]


def documented(command: str) -> list[list[str]]:
    """The doc's shell lines that run `command`, as arguments."""
    return [shlex.split(line) for line in documented_lines(command)]


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
    return [line for line in serve.json_lines() if line.get("path") == path]


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
    """Exited: no such process, or a zombie of which every thread has exited. A killed
    worker's main thread is a zombie while its other threads (a name resolver's, say) may
    still be ending with its files open: a connection the kernel hands its listening
    socket then is reset when the last of them closes it."""
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except (FileNotFoundError, ProcessLookupError):
        return True
    return all(_exited(task) for task in tasks)


def _exited(task: Path) -> bool:
    try:
        return "\nState:\tZ" in (task / "status").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return True  # reaped since it was listed (before the open, or between it and the read)


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


CITUS_CALL = re.compile(
    r"create_(reference|distributed)_table\('(\w+)'(?:, '(\w+)')?(?:, colocate_with => '(\w+)')?\)"
)


def test_the_documented_citus_layout_fits_the_schema(deployment: Deployment) -> None:
    """Citus's rules for the documented statements, checked on the migrated schema: every
    table placed once; a distributed table's primary key and unique keys hold its
    distribution column; all distributed tables co-located; foreign keys between them
    join on the distribution columns and point to tables placed before; reference tables
    refer only to reference tables."""
    [sql] = fenced("sql")
    calls = CITUS_CALL.findall(sql)

    tables = inspected(normalise_database_url(deployment.database_url), table_shapes)
    placed = [table for _, table, _, _ in calls]
    reference = {table for kind, table, _, _ in calls if kind == "reference"}
    distributed = {table: column for kind, table, column, _ in calls if kind == "distributed"}
    anchor = next(table for kind, table, _, _ in calls if kind == "distributed")

    assert sorted(placed) == sorted(set(tables) - {"alembic_version"})
    assert {g for kind, t, _, g in calls if kind == "distributed" and t != anchor} == {anchor}
    for table, column in distributed.items():
        shape = tables[table]
        assert column in shape.primary, table
        assert all(column in key for key in shape.unique), (table, shape.unique)
        for key in shape.foreign:
            assert key.table in reference or placed.index(key.table) < placed.index(table), key
            if key.table in distributed:
                position = key.columns.index(column)
                assert key.referred[position] == distributed[key.table], (table, key)
    for table in reference:
        assert all(key.table in reference for key in tables[table].foreign), table
    assert distributed.keys() >= TENANT_TABLES


def test_nginx_accepts_the_documented_configuration(tmp_path: Path) -> None:
    nginx = shutil.which("nginx")
    if nginx is None:
        pytest.skip("nginx is not installed here (the project does not install it)")
    [server_blocks] = fenced("nginx")
    config = tmp_path / "nginx.conf"
    certificate, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=test",
         "-keyout", key, "-out", certificate, "-days", "1"],
        check=True, capture_output=True,
    )  # fmt: skip
    server_blocks = re.sub(
        r"ssl_certificate\s+\S+;", f"ssl_certificate {certificate};", server_blocks
    )
    server_blocks = re.sub(
        r"ssl_certificate_key\s+\S+;", f"ssl_certificate_key {key};", server_blocks
    )
    config.write_text(
        f"pid {tmp_path}/nginx.pid;\nerror_log {tmp_path}/error.log;\n"
        f"events {{}}\nhttp {{\naccess_log off;\n{server_blocks}\n}}\n"
    )
    done = subprocess.run(
        [nginx, "-t", "-c", str(config)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr


def count_issues(url: str) -> int:
    async def count() -> int:
        connection = await asyncpg.connect(url)
        try:
            return int(await connection.fetchval("SELECT count(*) FROM issues"))
        finally:
            await connection.close()

    return asyncio.run(count())


def test_the_documented_postgresql_backup_restores(deployment: Deployment, tmp_path: Path) -> None:
    if not (shutil.which("pg_dump") and shutil.which("pg_restore")):
        pytest.skip("pg_dump and pg_restore are not installed here")
    [dump] = documented_lines("pg_dump")
    [restore] = documented("pg_restore")
    restored_url = create_postgres_database()
    try:
        env = {**deployment.env, "SUPPORTDESK_DATABASE_URL": deployment.database_url}
        subprocess.run(["bash", "-c", dump], env=env, cwd=tmp_path, check=True, capture_output=True)
        [dumped] = list(tmp_path.glob("supportdesk-*.dump"))
        # The doc's example database and date, replaced by this machine's.
        arguments = [
            a for a in restore if not a.startswith("--dbname=") and not a.endswith(".dump")
        ]
        subprocess.run(
            [*arguments, f"--dbname={restored_url}", str(dumped)],
            env=env, cwd=tmp_path, check=True, capture_output=True,
        )  # fmt: skip

        assert count_issues(restored_url) == count_issues(deployment.database_url) > 0
    finally:
        drop_postgres_database(restored_url)


def test_the_documented_sqlite_backup_is_a_whole_database(tmp_path: Path) -> None:
    if shutil.which("sqlite3") is None:
        pytest.skip("the sqlite3 command is not installed here")
    env = command_env(database_url=f"sqlite:///{tmp_path / 'data' / 'supportdesk.db'}")
    run_cli(env, "init", "--workspace", "Small", "--admin-email", "o@x.test", "--json")
    [backup] = documented_lines("sqlite3")

    subprocess.run(["bash", "-c", backup], cwd=tmp_path, check=True, capture_output=True)

    [copy] = [tmp_path / name for name in re.findall(r"\.backup '([^']+)'", backup)]
    with sqlite3.connect(copy) as database:
        assert database.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert database.execute("SELECT count(*) FROM workspaces").fetchone() == (1,)


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
        # Outside any transaction: pg_stat_activity is read once per transaction.
        observer = await asyncpg.connect(deployment.database_url)
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
            while not await observer.fetchval(
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
            await observer.close()
        return {"status": answer.status, "data": answer.data}

    answer = asyncio.run(scenario())
    exit_code = serve.process.wait(timeout=30)  # type: ignore[union-attr]

    assert answer["status"] == 200
    assert answer["data"]["createIssue"]["error"] is None  # type: ignore[index]
    assert exit_code == 0
    assert serve.worker_pids() == []


def test_a_killed_supervisor_leaves_no_worker_or_dispatcher_serving(tmp_path: Path) -> None:
    """Only the supervisor is killed, as the OOM killer might: its workers and dispatcher
    notice and stop by themselves, so nothing serves on, orphaned, on the port."""
    env = command_env(database_url=f"sqlite:///{tmp_path / 'orphans.db'}")
    run_cli(env, "migrate")
    serve = ServeProcess(env, workers=2).start().wait_ready()
    try:
        children = serve.worker_pids() + serve.dispatcher_pids()
        assert len(children) == 3

        os.kill(serve.pid, signal.SIGKILL)
        serve.process.wait(timeout=10)  # type: ignore[union-attr]
        deadline = time.monotonic() + 20
        while not all(_gone(pid) for pid in children):
            assert time.monotonic() < deadline, [pid for pid in children if not _gone(pid)]
            time.sleep(0.05)
        with pytest.raises(httpx.TransportError):
            httpx.get(f"{serve.base_url}/healthz", timeout=2)
    finally:
        serve.stop()
