"""`mail-inbound`: mail per second through the SMTP listener of a warm `serve` worker, and
the server's CPU per message. A sender process (bench/mail.py) keeps several SMTP
connections open and sends 20 KB messages (text and HTML, a quoted history) to a mailbox
of a workspace made for the run; half open an issue, half answer the one before.

One worker (`serve --workers 1`), so the rate is a worker's; the sender and the database
share the machine's other cores. Every message is checked afterwards: each must have been
kept and filed (`created` or `appended`), none parked or ignored."""

from __future__ import annotations

import asyncio
import json
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.mail import message
from bench.seed import fetch
from bench.servers import ROOT, Server, cpu_seconds, free_port, ours, postgres_pids
from supportdesk.config import normalise_database_url
from supportdesk.db import Database
from supportdesk.db.migrate import upgrade
from supportdesk.domain import audit
from supportdesk.domain.mailboxes.actions import create_mailbox
from supportdesk.domain.workspaces import init_workspace

SCENARIO = "mail-inbound"
WORKERS = 1
CONNECTIONS = 8


@dataclass(frozen=True)
class Mailbox:
    workspace_id: str
    address: str


async def new_mailbox(url: str) -> Mailbox:
    """A workspace of its own for this run, and its mailbox."""
    database_url = normalise_database_url(url)
    await asyncio.to_thread(upgrade, database_url)
    stamp = time.strftime("%Y%m%d%H%M%S") + str(time.time_ns() % 1000)
    database = Database(database_url, pool_size=1)
    try:
        made = await init_workspace(database, f"bench-mail-{stamp}", "bench@example.com")
        workspace_id = made.workspace.id
        created = await create_mailbox(
            database,
            audit.CLI_ACTOR,
            workspace_id,
            None,
            address=f"support@bench-mail-{stamp}.example",
            name="Support",
        )
    finally:
        await database.dispose()
    return Mailbox(workspace_id, created.mailbox.address)


def _send(port: int, to: str, seconds: float, connections: int, run: str) -> dict[str, Any]:
    command = [sys.executable, "-m", "bench.mail", "--port", str(port), "--to", to]
    command += ["--connections", str(connections), "--seconds", str(seconds), "--run", run]
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=seconds + 120, cwd=ROOT, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"the mail sender failed: {done.stderr or done.stdout}")
    sent: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    if sent["failed"]:
        print(f"  ! {sent['failed']} messages refused: {done.stderr.strip()[:300]}")
    return sent


def _postgres_cpu(count: bool) -> dict[int, float]:
    return {pid: cpu_seconds([pid]) for pid in postgres_pids()} if count else {}


def run_once(
    server: Server, smtp_port: int, to: str, seconds: float, connections: int, count_postgres: bool
) -> dict[str, Any]:
    """One timed run of the sender; the server's (and PostgreSQL's) CPU per message."""
    pids = server.pids()
    database_before = _postgres_cpu(count_postgres)
    before = cpu_seconds(pids)
    sent = _send(smtp_port, to, seconds, connections, f"{time.time_ns()}")
    used = cpu_seconds(pids) - before
    database_used = sum(
        now - database_before.get(pid, 0.0) for pid, now in _postgres_cpu(count_postgres).items()
    )
    messages = max(1, sent["messages"])
    return {
        **sent,
        "per_second": sent["messages"] / sent["seconds"],
        "cpu_us_per_message": used * 1e6 / messages,
        "postgres_cpu_us_per_message": database_used * 1e6 / messages if count_postgres else None,
    }


async def statuses(url: str, workspace_id: str) -> dict[str, int]:
    """How many kept messages of the workspace ended in each status."""
    rows = await fetch(
        url,
        "SELECT status, count(*) FROM inbound_emails WHERE workspace_id = $1 GROUP BY status",
        workspace_id,
    )
    return {str(status): int(count) for status, count in rows}


def measure(
    backend: str,
    url: str,
    log_folder: Path,
    *,
    rounds: int,
    seconds: float,
    warmup: float,
    connections: int = CONNECTIONS,
) -> dict[str, Any]:
    """The figures of one backend: every round, their medians, and what became of the mail."""
    mailbox = asyncio.run(new_mailbox(url))
    smtp_port = free_port()
    # No dispatcher: the mailbox sends no acknowledgements, and nothing else goes out.
    server = ours(url, WORKERS, dispatch=False, name="ours-mail", smtp_port=smtp_port)
    server.start(log_folder)
    count_postgres = backend == "postgresql"
    taken = []
    try:
        if warmup:
            warm = run_once(server, smtp_port, mailbox.address, warmup, connections, count_postgres)
            print(f"  [{backend} warm-up] {SCENARIO}: {warm['per_second']:,.0f}/s")
        for round_ in range(rounds):
            found = run_once(
                server, smtp_port, mailbox.address, seconds, connections, count_postgres
            )
            taken.append(found)
            print(
                f"  [{backend} {round_ + 1}/{rounds}] {SCENARIO}: {found['per_second']:,.0f}/s, "
                f"{found['cpu_us_per_message']:,.0f} µs server CPU per message"
            )
    finally:
        server.stop()
    ended = asyncio.run(statuses(url, mailbox.workspace_id))
    return summary(taken, ended, connections)


def summary(taken: list[dict[str, Any]], ended: dict[str, int], connections: int) -> dict[str, Any]:
    def median(key: str) -> float | None:
        values = [run[key] for run in taken if run[key] is not None]
        return round(statistics.median(values), 1) if values else None

    return {
        "workers": WORKERS,
        "connections": connections,
        "message_bytes": len(message("support@example.com", 1, 1, "0")),
        "messages_per_second": median("per_second"),
        "server_cpu_us_per_message": median("cpu_us_per_message"),
        "postgres_cpu_us_per_message": median("postgres_cpu_us_per_message"),
        "p50_ms": median("p50_ms"),
        "p99_ms": median("p99_ms"),
        "failed": sum(run["failed"] for run in taken),
        "statuses": ended,
        "rounds": taken,
    }
