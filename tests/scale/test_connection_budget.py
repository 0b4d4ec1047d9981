"""`supportdesk serve --workers 2` on PostgreSQL, every pool of every worker filled: the
connections PostgreSQL sees (`pg_stat_activity`) peak at exactly what the sizing warning
counts for two workers (docs/deploy.md), and never more.

Requests are fast, so a burst alone fills the pools only by chance. The test holds an
ACCESS EXCLUSIVE lock on `issues` instead: each `replyToIssue` then waits inside its
transaction on a connection of the shared pool (not `createIssue`: a worker's createIssues
of one workspace take turns before they take a connection), and each `issueByNumber` waits on a
connection of the direct reads' pool, for as long as the test likes. Writes go first: a
worker whose direct pool is full of waiting reads cannot look up the key of a new request,
so its writes would never reach the shared pool. Past each pool's limit, more requests are
sent on purpose: they queue, and a worker that could open more connections than counted
would open them. The count is sampled every 5 ms, from the start of the load to its last
answer, by a connection to another database."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import asyncpg
import httpx
import pytest

from supportdesk.config import Settings
from supportdesk.db import Database
from supportdesk.server import connections_per_worker
from tests.conftest import unique_email
from tests.processes import ServeProcess, command_env, run_cli
from tests.servers import POSTGRES_ADMIN_URL, create_postgres_database, drop_postgres_database

pytestmark = pytest.mark.processes

WORKERS = 2
POOL_SIZE = 2
# Requests sent past the point where the pools are full: each worker gets several of them
# (the kernel spreads new connections by a hash), and each finds no free connection.
BEYOND = 12
# Enough for any split of requests over the workers that the kernel's hash makes in practice.
MOST_UNTIL_FULL = 40
PHASE_SECONDS = 20.0

CREATE = """mutation Create($input: CreateIssueInput!) {
  createIssue(input: $input) { issue { id ticketNumber } error { code } } }"""
REPLY = """mutation Reply($input: ReplyToIssueInput!) {
  replyToIssue(input: $input) { issue { messageCount } error { code } } }"""
READ = "{ issueByNumber(ticketNumber: 1) { ticketNumber } }"
# The served database's client connections, the test's own lock holder left out; `waiting`
# are those waiting on a lock.
COUNT = """SELECT count(*), count(*) FILTER (WHERE wait_event_type = 'Lock')
           FROM pg_stat_activity
           WHERE datname = $1 AND backend_type = 'client backend' AND pid <> $2"""


@dataclass
class Served:
    database_url: str
    process: ServeProcess
    key: str


@pytest.fixture(scope="module")
def served(request: pytest.FixtureRequest) -> Iterator[Served]:
    request.getfixturevalue("postgresql_url")  # skips (or fails in CI) without PostgreSQL
    database_url = create_postgres_database()
    # Requests wait on the test's lock for a few seconds: far from the time-out on a busy machine.
    # The workers alone: a dispatcher process would add connections of its own.
    env = command_env(
        database_url=database_url,
        db_pool_size=str(POOL_SIZE),
        request_timeout_seconds="60",
        webhook_dispatch="false",
    )
    made = json.loads(
        run_cli(env, "init", "--workspace", "Budget", "--admin-email", unique_email(), "--json")
    )
    process = ServeProcess(env, WORKERS).start()
    try:
        _wait_for_every_worker(process.wait_ready())
        yield Served(database_url, process, made["api_key"])
    finally:
        process.stop()
        drop_postgres_database(database_url)


def _wait_for_every_worker(process: ServeProcess) -> None:
    """Until each worker has answered /readyz (a new connection lands on either worker, and
    waits in its socket's backlog until that worker serves)."""
    deadline = time.monotonic() + 60
    answered_by: set[object] = set()
    while len(answered_by) < WORKERS:
        assert time.monotonic() < deadline, f"not every worker answered:\n{process.stderr}"
        assert httpx.get(f"{process.base_url}/readyz", timeout=60).status_code == 200
        answered_by = {
            line["pid"] for line in process.json_lines() if line.get("path") == "/readyz"
        }


@dataclass
class Sampler:
    """Counts the server's connections every few milliseconds, and keeps the most seen."""

    database: str
    holder_pid: int
    latest: tuple[int, int] = (0, 0)
    peak: int = 0
    samples: int = 0
    _stop: asyncio.Event = field(default_factory=asyncio.Event)

    async def run(self) -> None:
        # On another database than the served one, so that it never counts itself.
        connection = await asyncpg.connect(POSTGRES_ADMIN_URL)
        try:
            while not self._stop.is_set():
                row = await connection.fetchrow(COUNT, self.database, self.holder_pid)
                assert row is not None
                self.latest = (row[0], row[1])
                self.peak = max(self.peak, row[0])
                self.samples += 1
                await asyncio.sleep(0.005)
        finally:
            await connection.close()

    def stop(self) -> None:
        self._stop.set()


class Load:
    """Requests, each on a new TCP connection (so the kernel picks a worker for each)."""

    def __init__(self, served: Served) -> None:
        self.url = f"{served.process.base_url}/graphql"
        self.headers = {"Authorization": f"Bearer {served.key}"}
        self.http = httpx.AsyncClient(
            timeout=120,
            limits=httpx.Limits(max_connections=None, max_keepalive_connections=0),
        )
        self.sent: list[asyncio.Task[httpx.Response]] = []

    def send(self, body: dict[str, object]) -> None:
        post = self.http.post(self.url, json=body, headers=self.headers)
        self.sent.append(asyncio.ensure_future(post))

    def create(self) -> None:
        index = len(self.sent)
        variables = {
            "input": {"subject": f"Issue {index}", "body": "Hi", "requesterEmail": "r@x.io"}
        }
        self.send({"query": CREATE, "variables": variables})

    def read(self) -> None:
        self.send({"query": READ})

    def reply_to(self, issue_id: str) -> Callable[[], None]:
        def reply() -> None:
            variables = {"input": {"issueId": issue_id, "body": f"Reply {len(self.sent)}"}}
            self.send({"query": REPLY, "variables": variables})

        return reply

    async def send_until(
        self, send: Callable[[], None], sampler: Sampler, reached: Callable[[int, int], bool]
    ) -> None:
        """Sends a request every 20 ms until the counts (all, waiting) are `reached`, then
        BEYOND more."""
        deadline = time.monotonic() + PHASE_SECONDS
        sent = 0
        while not reached(*sampler.latest):
            assert time.monotonic() < deadline, f"not reached: {sampler.latest} (all, waiting)"
            if sent < MOST_UNTIL_FULL:
                send()
                sent += 1
            await asyncio.sleep(0.02)
        for _ in range(BEYOND):
            send()

    async def answers(self) -> list[httpx.Response]:
        try:
            return list(await asyncio.gather(*self.sent))
        finally:
            await self.http.aclose()


async def _fill_every_pool(
    served: Served, limits: dict[str, int]
) -> tuple[Sampler, list[httpx.Response]]:
    database = served.database_url.rsplit("/", 1)[1]
    load = Load(served)
    load.create()  # issue 1, for the reads and the replies
    [created] = await load.answers()
    issue_id = created.json()["data"]["createIssue"]["issue"]["id"]
    load = Load(served)
    holder = await asyncpg.connect(served.database_url)
    sampler = Sampler(database, holder.get_server_pid())
    sampling = asyncio.ensure_future(sampler.run())
    try:
        lock = holder.transaction()
        await lock.start()
        await holder.execute("LOCK TABLE issues IN ACCESS EXCLUSIVE MODE")
        shared = WORKERS * limits["shared"]
        reply = load.reply_to(issue_id)
        await load.send_until(reply, sampler, lambda _, waiting: waiting >= shared)
        everything = WORKERS * sum(limits.values())
        await load.send_until(load.read, sampler, lambda count, _: count >= everything)
        # Time for the requests sent beyond the limits to reach their pools.
        await asyncio.sleep(0.5)
        await lock.rollback()
        answers = await load.answers()
    finally:
        sampler.stop()
        await sampling
        await holder.close()
    return sampler, answers


def test_serve_opens_exactly_the_connections_the_sizing_warning_counts(served: Served) -> None:
    settings = Settings(database_url=served.database_url, db_pool_size=POOL_SIZE)
    budget = WORKERS * connections_per_worker(settings)

    # Each pool's limit only paces the load; what is asserted is the peak.
    sampler, answers = asyncio.run(
        _fill_every_pool(served, Database.limits_of(served.database_url, POOL_SIZE))
    )

    assert sampler.peak == budget, f"peak {sampler.peak}, budget {budget}"
    assert budget == WORKERS * (2 * POOL_SIZE + 2)  # docs/deploy.md's formula
    assert all(answer.status_code == 200 for answer in answers)
    assert all("errors" not in answer.json() for answer in answers)
