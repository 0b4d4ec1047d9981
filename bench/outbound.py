"""`replyToIssue-email`: what sending replies by e-mail costs a warm server. The same `serve`
(its dispatcher role on, `SUPPORTDESK_SMTP_URL` at a local SMTP sink that takes and drops
every message: Postfix's smtp-sink, which costs about as much CPU as a real relay's SMTP
server, a tenth of a Python one) answers replyToIssue
in two workspaces in alternating rounds:

- "ours+mail": issues opened by mail (through the pipeline, as the SMTP listener files
  them) in a workspace with a mailbox: every reply writes an outbox row in its own
  transaction, and the dispatcher sends it;
- "ours": the same issues, opened by the same mail in a workspace of their own whose
  mailbox was then deleted: e-mail off, so the replies differ only in their mail.

After each run the bench waits until no mail is pending, so no run pays for another's.

`drain` (`python -m bench mail-drain`) measures the dispatcher's share alone: replies queued
beforehand, one Mailer in this process sends them all into the sink, and the CPU this
process spent doing it is divided by the mails."""

from __future__ import annotations

import asyncio
import socket
import statistics
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from sqlalchemy import bindparam, func, select

from bench import seed
from bench.inbound import new_mailbox
from bench.load import Driver, LoadSettings, Measurement
from bench.mail import message
from bench.scenarios import REPLY_TO_ISSUE, Requests, body
from bench.servers import Server, bench_env, free_port, ours
from bench.tools import smtp_sink_command
from supportdesk.auth.server_key import ServerKey
from supportdesk.config import Settings, normalise_database_url
from supportdesk.db import Database
from supportdesk.db.tables import email_outbox
from supportdesk.dispatch.mailer import Mailer
from supportdesk.domain import audit
from supportdesk.domain.email.intake import MailIntake
from supportdesk.domain.issues.actions import reply_to_issue
from supportdesk.domain.mailboxes.actions import delete_mailbox
from supportdesk.domain.mailboxes.queries import mailbox_for_recipient
from supportdesk.storage.location import storage_for

SCENARIO = "replyToIssue-email"
WITH_MAIL = "ours+mail"
# Enough issues that a thread stays short over the rounds (a reply's cost grows with its
# thread: the search row it appends to, the References chain the mail carries).
ISSUES = 1000
TARGET = 0.9
REPLY = "Thanks, we are looking into it and will write again within the day."


@dataclass(frozen=True)
class Workspaces:
    without_mail: str
    with_mail: str
    requests: dict[str, Requests]


async def _opened_by_mail(url: str, issues: int, *, mail_on: bool = True) -> tuple[str, list[str]]:
    """A workspace with a mailbox, and `issues` issues opened by mail to it; with e-mail
    off, the mailbox is then deleted (its issues and messages stay, and no reply is mailed)."""
    mailbox = await new_mailbox(url)
    database = Database(normalise_database_url(url), pool_size=1)
    key = bench_env()["SUPPORTDESK_SECRET_KEY"]
    settings = Settings(database_url=url, secret_key=key)
    intake = MailIntake(database, ServerKey(key, database), storage_for(settings), 10**7, 10**7)
    try:
        found = await mailbox_for_recipient(database, mailbox.address)
        assert found is not None
        run = f"reply{time.time_ns()}"
        issue_ids = []
        for n in range(issues):
            raw = message(mailbox.address, n, 0, run)
            taken = await intake.receive(found, raw, "smtp", [mailbox.address])
            assert taken.issue_id is not None, taken
            issue_ids.append(taken.issue_id)
        if not mail_on:
            await delete_mailbox(database, audit.CLI_ACTOR, found.workspace_id, found.id)
    finally:
        await database.dispose()
    return mailbox.workspace_id, issue_ids


def _replies(issue_ids: list[str], key: str) -> Requests:
    return Requests(
        [
            body(REPLY_TO_ISSUE, "ReplyToIssue", {"input": {"issueId": issue_id, "body": REPLY}})
            for issue_id in issue_ids
        ],
        f"Bearer {key}",
    )


async def prepare(url: str, issues: int = ISSUES) -> Workspaces:
    with_mail, mailed_ids = await _opened_by_mail(url, issues)  # migrates the database first
    without, plain_ids = await _opened_by_mail(url, issues, mail_on=False)
    requests = {
        "ours": _replies(plain_ids, await seed.new_key(url, without)),
        WITH_MAIL: _replies(mailed_ids, await seed.new_key(url, with_mail)),
    }
    # Statistics that know the new workspaces, as a running database's have (the seeded
    # scenarios analyse too): what is measured is the work, not a planner guessing.
    await seed.fetch(url, "ANALYZE")
    return Workspaces(without, with_mail, requests)


def sink() -> Server:
    """An SMTP server that takes every message and keeps none (Postfix's smtp-sink)."""
    port = free_port()
    command, env = smtp_sink_command(port)
    return Server("smtp-sink", command, port, env, ready_path=None)


def _wait_for_port(port: int, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


async def mail_counts(url: str, workspace_id: str) -> dict[str, int]:
    """The workspace's outbox rows by status (pending, sent, failed)."""
    rows = await seed.fetch(
        url,
        "SELECT status, count(*) FROM email_outbox WHERE workspace_id = $1 GROUP BY status",
        workspace_id,
    )
    return {str(status): int(count) for status, count in rows}


def _drained(url: str, workspace_id: str, timeout: float = 120) -> int:
    """Waits until no mail of the workspace is pending; how many were when it started."""
    first = None
    deadline = time.monotonic() + timeout
    while True:
        pending = asyncio.run(mail_counts(url, workspace_id)).get("pending", 0)
        first = pending if first is None else first
        if not pending:
            return first
        if time.monotonic() > deadline:
            raise RuntimeError(f"{pending} mails still pending after {timeout:.0f} s")
        time.sleep(0.2)


def measure(
    backend: str,
    url: str,
    log_folder: Path,
    *,
    wrk: str,
    rounds: int,
    seconds: int,
    warmup: int,
    connections: int,
    workers: int,
) -> dict[str, Any]:
    """Alternating rounds of replyToIssue without and with mail on one warm server."""
    spaces = asyncio.run(prepare(url))
    mail_sink = sink().start(log_folder)
    _wait_for_port(mail_sink.port)
    server = ours(url, workers, name="ours-reply-mail")
    server.env["SUPPORTDESK_SMTP_URL"] = f"smtp://127.0.0.1:{mail_sink.port}"
    driver = Driver(LoadSettings(wrk, seconds, connections), count_postgres=backend == "postgresql")
    runs: list[Measurement] = []
    pending_at_stop = []
    before: dict[str, int] = {}
    try:
        server.start(log_folder)
        names = ["ours", WITH_MAIL]
        for name in names if warmup else []:
            driver.run(server, SCENARIO, spaces.requests[name], -1, warmup)
            _drained(url, spaces.with_mail)
        before = asyncio.run(mail_counts(url, spaces.with_mail))
        for round_ in range(rounds):
            line = []
            for name in names if round_ % 2 == 0 else names[::-1]:
                taken = driver.run(server, SCENARIO, spaces.requests[name], round_)
                runs.append(replace(taken, server=name, backend=backend))
                line.append(f"{name} {taken.rps:,.0f}/s ({taken.cpu_us_per_request:,.0f} µs)")
                if name == WITH_MAIL:
                    pending_at_stop.append(_drained(url, spaces.with_mail))
            print(f"  [{backend} {round_ + 1}/{rounds}] {SCENARIO}: {', '.join(line)}", flush=True)
    finally:
        server.stop()
        mail_sink.stop()
    after = asyncio.run(mail_counts(url, spaces.with_mail))
    counts = {status: after[status] - before.get(status, 0) for status in after}
    return summary(runs, counts, pending_at_stop, workers, connections)


def summary(
    runs: list[Measurement],
    counts: dict[str, int],
    pending_at_stop: list[int],
    workers: int,
    connections: int,
) -> dict[str, Any]:
    """The medians of each side, the median of each round's throughput ratio, and what
    became of the mail of the measured rounds (`counts`, by status)."""
    by_round: dict[int, dict[str, Measurement]] = {}
    for run in runs:
        by_round.setdefault(run.round, {})[run.server] = run
    pairs = [(kinds["ours"], kinds[WITH_MAIL]) for kinds in by_round.values() if len(kinds) == 2]
    ratios = [round(mail.rps / plain.rps, 3) for plain, mail in pairs]

    def median(values: list[float | None]) -> float | None:
        found = [value for value in values if value is not None]
        return round(statistics.median(found), 1) if found else None

    with_mail = [mail for _, mail in pairs]
    without = [plain for plain, _ in pairs]
    mailed_requests = sum(run.requests for run in with_mail)
    ratio = statistics.median(ratios) if ratios else None
    return {
        "workers": workers,
        "connections": connections,
        "rounds": len(pairs),
        "rps_without": median([run.rps for run in without]),
        "rps_with": median([run.rps for run in with_mail]),
        "ratio": ratio,
        "ratios": ratios,
        "meets_target": ratio is not None and ratio >= TARGET,
        "cpu_us_per_request_without": median([run.cpu_us_per_request for run in without]),
        "cpu_us_per_request_with": median([run.cpu_us_per_request for run in with_mail]),
        "db_cpu_us_per_request_without": median([run.db_cpu_us_per_request for run in without]),
        "db_cpu_us_per_request_with": median([run.db_cpu_us_per_request for run in with_mail]),
        "errors": sum(run.errors for run in runs),
        "mail": counts,
        "mail_per_reply": round(counts.get("sent", 0) / mailed_requests, 3)
        if mailed_requests
        else None,
        "most_pending_when_load_stopped": max(pending_at_stop, default=0),
    }


# How many queued replies `drain` sends; how often it looks whether they all went.
DRAINED = 500
DRAIN_LOOK_SECONDS = 0.05
_PENDING = (
    select(func.count())
    .select_from(email_outbox)
    .where(
        email_outbox.c.workspace_id == bindparam("workspace_id"),
        email_outbox.c.status == "pending",
    )
)


async def _sent_by_one_mailer(url: str, mails: int, smtp_port: int) -> dict[str, Any]:
    workspace_id, issue_ids = await _opened_by_mail(url, mails)
    database = Database(normalise_database_url(url), pool_size=2)
    key = bench_env()["SUPPORTDESK_SECRET_KEY"]
    settings = Settings(database_url=url, secret_key=key, smtp_url=f"smtp://127.0.0.1:{smtp_port}")
    try:
        for issue_id in issue_ids:
            await reply_to_issue(database, audit.CLI_ACTOR, workspace_id, issue_id, REPLY)
        mailer = Mailer(database, settings, ServerKey(key, database), poll_seconds=0.01)
        cpu, started = time.process_time(), time.monotonic()
        mailer.start()
        while True:
            # On the Mailer's own pool: a look costs a read, not a new connection.
            async with database.read() as connection:
                pending = await connection.scalar(_PENDING, {"workspace_id": workspace_id})
            if not pending:
                break
            await asyncio.sleep(DRAIN_LOOK_SECONDS)
        cpu, wall = time.process_time() - cpu, time.monotonic() - started
        await mailer.stop()
    finally:
        await database.dispose()
    counts = await mail_counts(url, workspace_id)
    return {
        "mails": mails,
        "sent": counts.get("sent", 0),
        "failed": counts.get("failed", 0),
        "cpu_ms_per_mail": round(cpu / mails * 1000, 2),
        "seconds": round(wall, 2),
    }


def drain(url: str, log_folder: Path, mails: int = DRAINED) -> dict[str, Any]:
    """The dispatcher's CPU per mail: `mails` replies queued first, then sent by one Mailer
    in this process into the sink (its CPU counted with the few reads that look whether
    all went)."""
    mail_sink = sink().start(log_folder)
    try:
        _wait_for_port(mail_sink.port)
        return asyncio.run(_sent_by_one_mailer(url, mails, mail_sink.port))
    finally:
        mail_sink.stop()
