"""A realistic workspace, seeded fast with bulk SQL (COPY on PostgreSQL, executemany on
SQLite), never through GraphQL. A seeded database is reused while its seed fingerprint (the
seed version and the tables it fills) matches; a new workspace size is added to it in place.

Workspaces are made the way the product makes them (`init_workspace`), so keys, machine
users and audit rows are real; only the bulk of issues, messages, contacts, accounts and
articles is written directly.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Protocol

import asyncpg
from sqlalchemy import Boolean, Integer, Table
from sqlalchemy.engine import make_url

from supportdesk.auth.scopes import PRESETS
from supportdesk.config import normalise_database_url
from supportdesk.db import Database
from supportdesk.db.migrate import upgrade
from supportdesk.db.search import WORKSPACE_COLUMN, workspace_token
from supportdesk.db.tables import metadata
from supportdesk.domain import api_keys, audit, machine_users
from supportdesk.domain.ids import CROCKFORD, PREFIXES
from supportdesk.domain.issues import NewIssue, create_issue
from supportdesk.domain.workspaces import init_workspace

SEED_VERSION = 4  # 4: the workspace's token in SQLite's full-text rows
SEED_TABLE = "bench_seed"
CHUNK = 20_000
LONG_THREAD = 120  # messages of the issues that messages(first: 100) reads
# What `feed` adds to the writes workspace: with the managed one, ten machine users; each
# issue, by a new requester, records contact.created and issue.created.
FEED_MACHINE_USERS = 9
FEED_ISSUES = 50


@dataclass(frozen=True, slots=True)
class WorkspaceSpec:
    name: str
    issues: int
    messages_per_issue: int = 20
    long_threads: int = 0
    articles: int = 0

    @property
    def contacts(self) -> int:
        return max(20, self.issues // 5)

    @property
    def accounts(self) -> int:
        return max(4, self.issues // 50)


MAIN = WorkspaceSpec("bench-10k", 10_000, long_threads=20, articles=1_000)
SMALL = WorkspaceSpec("bench-1k", 1_000)
LARGE = WorkspaceSpec("bench-100k", 100_000)
WRITES = WorkspaceSpec("bench-writes", 200)
# createIssue with no webhook endpoint vs one subscribed to everything (made anew each run).
HOOKS = (
    WorkspaceSpec("bench-hooks-none", 200, messages_per_issue=2),
    WorkspaceSpec("bench-hooks-one", 200, messages_per_issue=2),
)


@dataclass(frozen=True)
class Plan:
    """The workspaces of a run: `main` takes the operations, `writes` the mutations (made
    anew each run), `sizes` the comparison of workspace sizes (smallest first), `hooks`
    the webhook comparison (without an endpoint, with one; made anew each run)."""

    main: WorkspaceSpec
    writes: WorkspaceSpec
    sizes: tuple[WorkspaceSpec, ...]
    hooks: tuple[WorkspaceSpec, ...] = ()

    @property
    def specs(self) -> list[WorkspaceSpec]:
        everything = (*self.sizes, self.main, self.writes, *self.hooks)
        found = {spec.name: spec for spec in everything}
        return list(found.values())

    @property
    def made_anew(self) -> list[WorkspaceSpec]:
        """The workspaces the write scenarios add to, dropped and seeded again each run."""
        return [self.writes, *self.hooks]


FULL = Plan(MAIN, WRITES, (SMALL, MAIN, LARGE), HOOKS)
QUICK = Plan(MAIN, WRITES, (SMALL, MAIN), HOOKS)


def size_label(issues: int) -> str:
    return f"{issues // 1000}k" if issues >= 1000 and issues % 1000 == 0 else str(issues)


@dataclass(frozen=True, slots=True)
class Seeded:
    name: str
    workspace_id: str
    machine_user_id: str
    issues: int


# ---------------------------------------------------------------------------- identifiers

_PAIRS = [a + b for a in CROCKFORD for b in CROCKFORD]  # 10 bits -> 2 characters


def _base32(value: int, pairs: int) -> str:
    """`value` in Crockford base32, 2 * `pairs` characters, most significant first."""
    chunks = []
    for _ in range(pairs):
        value, low = divmod(value, 1024)
        chunks.append(_PAIRS[low])
    return "".join(reversed(chunks))


class IdMaker:
    """Product-shaped ids (`iss_<ULID>`: 48 bits of milliseconds, 80 random bits) whose
    time part is the row's created_at; a seeded random source keeps the data the same
    from run to run."""

    def __init__(self, seed: str) -> None:
        self.random = random.Random(seed)

    def __call__(self, type_name: str, at: datetime) -> str:
        milliseconds = _base32(int(at.timestamp() * 1000), 5)
        return f"{PREFIXES[type_name]}_{milliseconds}{_base32(self.random.getrandbits(80), 8)}"


# ---------------------------------------------------------------------------- text

_VOCABULARY = (
    "account billing invoice refund password login printer network export report dashboard "
    "mobile app sync calendar email notification upgrade plan team member permission error "
    "timeout slow page upload file attachment integration webhook api key token browser "
    "settings profile language timezone delete archive search filter import csv payment "
    "card receipt subscription trial cancel renew license seat admin workspace project"
)
_WORDS = tuple(_VOCABULARY.split())
TOPICS = (
    "printer",
    "password",
    "invoice",
    "refund",
    "webhook",
    "export",
    "calendar",
    "upload",
    "subscription",
    "timezone",
)
# Words no other text holds, for the issue search: each in SEARCH_HITS issues of every
# workspace, whatever its size (in the third message; in the subject too for every fourth),
# so that a search finds as much in a 1k-issue workspace as in a 100k one.
SEARCH_TERMS = (
    "zircon",
    "quokka",
    "fjord",
    "nimbus",
    "tundra",
    "saffron",
    "pelican",
    "cobalt",
    "juniper",
    "marmot",
)
SEARCH_HITS = 20


def issue_queries() -> list[str]:
    """What the bench's issue search asks: each word alone, then with a word most threads
    hold (every word must match)."""
    return [*SEARCH_TERMS, *(f"{term} {_WORDS[n]}" for n, term in enumerate(SEARCH_TERMS))]


_SUBJECTS = (
    "Cannot log in after the {0} change",
    "{0} is not working on {1}",
    "Question about {0} and {1}",
    "Error when I open the {0} page",
    "How do I {0} my {1}?",
    "{0} shows the wrong {1}",
    "Request: {0} for {1}",
)


class Text:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.bodies = [self._paragraph(rng.randint(12, 90)) for _ in range(400)]

    def _paragraph(self, words: int) -> str:
        chosen = [self.rng.choice(_WORDS) for _ in range(words)]
        return (" ".join(chosen).capitalize() + ".")[:2000]

    def subject(self) -> str:
        template = self.rng.choice(_SUBJECTS)
        return template.format(self.rng.choice(_WORDS), self.rng.choice(_WORDS)).capitalize()

    def body(self) -> str:
        return self.rng.choice(self.bodies)


# ---------------------------------------------------------------------------- storage


class Store(Protocol):
    def stamp(self, moment: datetime) -> Any: ...

    async def tables(self) -> set[str]: ...
    async def seeded(self) -> dict[str, dict[str, Any]]: ...
    async def copy(
        self, table: str, columns: Sequence[str], rows: Iterable[tuple[Any, ...]]
    ) -> None: ...
    async def record(self, seeded: Seeded, fingerprint: str) -> None: ...
    async def set_ticket_counter(self, workspace_id: str, last: int) -> None: ...
    async def first_search_rowid(self) -> int | None: ...
    async def index_issues(self, workspace_id: str, chunk: Thread) -> None: ...
    async def analyse(self) -> None: ...
    async def run_all(self, statements: Sequence[tuple[str, Any]]) -> None: ...
    async def value(self, statement: str) -> Any: ...
    async def wipe(self) -> None: ...
    async def close(self) -> None: ...


# The vectors of a chunk of issues ($2, ids) from their subjects and threads: the product's
# index (domain/issues/search.py: english, the subject weighted A, the bodies B).
INDEX_ISSUES_POSTGRESQL = (
    "UPDATE issues SET search_vector = "
    "setweight(to_tsvector('english'::regconfig, issues.subject), 'A') || "
    "setweight(to_tsvector('english'::regconfig, thread.body), 'B') "
    "FROM (SELECT messages.issue_id, string_agg(messages.body, E'\\n' ORDER BY messages.id) "
    "AS body FROM messages WHERE messages.workspace_id = $1 AND messages.issue_id = ANY($2) "
    "GROUP BY messages.issue_id) AS thread "
    "WHERE issues.workspace_id = $1 AND issues.id = thread.issue_id"
)


def sqlite_stamp(moment: datetime) -> str:
    """SQLAlchemy's storage format for DateTime on SQLite (naive UTC, microseconds)."""
    return moment.astimezone(UTC).replace(tzinfo=None).isoformat(" ", "microseconds")


_SEED_COLUMNS = "name TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, workspace_id TEXT NOT NULL, machine_user_id TEXT NOT NULL, issues INTEGER NOT NULL"


class PostgresStore:
    def stamp(self, moment: datetime) -> datetime:
        return moment

    def __init__(self, connection: asyncpg.Connection) -> None:
        self.connection = connection

    @classmethod
    async def open(cls, dsn: str) -> PostgresStore:
        connection = await asyncpg.connect(dsn)
        await connection.execute("SET synchronous_commit = off")
        # A workspace being seeded is missing from the statistics (gathered before it was),
        # so a plan made for its id reckons it holds one issue: INDEX_ISSUES_POSTGRESQL then
        # read the workspace's every issue and message for each chunk, minutes per chunk
        # in a 100k-issue workspace. The generic plan looks issues up by the chunk's ids.
        await connection.execute("SET plan_cache_mode = force_generic_plan")
        # The rows are consistent by construction; per-row foreign-key triggers would cost
        # more than the load itself (their plans are cached while the tables are empty).
        # Only a superuser may skip them; anyone else loads slower.
        with contextlib.suppress(asyncpg.InsufficientPrivilegeError):
            await connection.execute("SET session_replication_role = replica")
        return cls(connection)

    async def tables(self) -> set[str]:
        rows = await self.connection.fetch(
            "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"
        )
        return {row["tablename"] for row in rows}

    async def seeded(self) -> dict[str, dict[str, Any]]:
        if SEED_TABLE not in await self.tables():
            return {}
        rows = await self.connection.fetch(f"SELECT * FROM {SEED_TABLE}")
        return {row["name"]: dict(row) for row in rows}

    async def copy(
        self, table: str, columns: Sequence[str], rows: Iterable[tuple[Any, ...]]
    ) -> None:
        await self.connection.copy_records_to_table(table, records=rows, columns=list(columns))

    async def record(self, seeded: Seeded, fingerprint: str) -> None:
        await self.connection.execute(f"CREATE TABLE IF NOT EXISTS {SEED_TABLE} ({_SEED_COLUMNS})")
        await self.connection.execute(
            f"INSERT INTO {SEED_TABLE} VALUES ($1, $2, $3, $4, $5)",
            seeded.name,
            fingerprint,
            seeded.workspace_id,
            seeded.machine_user_id,
            seeded.issues,
        )

    async def set_ticket_counter(self, workspace_id: str, last: int) -> None:
        await self.connection.execute(
            "UPDATE workspaces SET last_ticket_number = $2 WHERE id = $1", workspace_id, last
        )

    async def first_search_rowid(self) -> int | None:
        return None  # PostgreSQL's index is a column of the issue's row

    async def index_issues(self, workspace_id: str, chunk: Thread) -> None:
        """The issues' vectors, computed by PostgreSQL from their rows, as migration 0013
        computes them."""
        await self.connection.execute(
            INDEX_ISSUES_POSTGRESQL, workspace_id, [row[1] for row in chunk.issues]
        )

    async def analyse(self) -> None:
        await self.connection.execute("VACUUM ANALYZE")

    async def value(self, statement: str) -> Any:
        return await self.connection.fetchval(statement)

    async def run_all(self, statements: Sequence[tuple[str, Any]]) -> None:
        async with self.connection.transaction():
            for statement, argument in statements:
                await self.connection.execute(statement, argument)

    async def wipe(self) -> None:
        await self.connection.execute("DROP SCHEMA public CASCADE; CREATE SCHEMA public")

    async def close(self) -> None:
        await self.connection.close()


class SqliteStore:
    def stamp(self, moment: datetime) -> str:
        return sqlite_stamp(moment)

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self.connection = sqlite3.connect(path, isolation_level=None)
        self.connection.execute("PRAGMA journal_mode=WAL")
        self.connection.execute("PRAGMA busy_timeout=10000")

    async def tables(self) -> set[str]:
        rows = self.connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        return {row[0] for row in rows}

    async def seeded(self) -> dict[str, dict[str, Any]]:
        if SEED_TABLE not in await self.tables():
            return {}
        cursor = self.connection.execute(f"SELECT * FROM {SEED_TABLE}")
        names = [d[0] for d in cursor.description]
        return {row[0]: dict(zip(names, row, strict=True)) for row in cursor}

    async def copy(
        self, table: str, columns: Sequence[str], rows: Iterable[tuple[Any, ...]]
    ) -> None:
        marks = ", ".join("?" for _ in columns)
        statement = f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})"
        self.connection.execute("BEGIN IMMEDIATE")
        try:
            self.connection.executemany(statement, rows)
        except BaseException:
            self.connection.execute("ROLLBACK")
            raise
        self.connection.execute("COMMIT")

    async def record(self, seeded: Seeded, fingerprint: str) -> None:
        self.connection.execute(f"CREATE TABLE IF NOT EXISTS {SEED_TABLE} ({_SEED_COLUMNS})")
        self.connection.execute(
            f"INSERT INTO {SEED_TABLE} VALUES (?, ?, ?, ?, ?)",
            (seeded.name, fingerprint, seeded.workspace_id, seeded.machine_user_id, seeded.issues),
        )

    async def set_ticket_counter(self, workspace_id: str, last: int) -> None:
        self.connection.execute(
            "UPDATE workspaces SET last_ticket_number = ? WHERE id = ?", (last, workspace_id)
        )

    async def first_search_rowid(self) -> int | None:
        last = self.connection.execute("SELECT coalesce(max(search_rowid), 0) FROM issues")
        return int(last.fetchone()[0]) + 1

    async def index_issues(self, workspace_id: str, chunk: Thread) -> None:
        # The workspace's token in its column, as the product's writers index a row.
        token = workspace_token(workspace_id)
        rows = [(*row, token) for row in chunk.index]
        await self.copy("issues_fts", ("rowid", "subject", "body", WORKSPACE_COLUMN), rows)

    async def analyse(self) -> None:
        self.connection.execute("ANALYZE")
        self.connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    async def value(self, statement: str) -> Any:
        return self.connection.execute(statement).fetchone()[0]

    async def run_all(self, statements: Sequence[tuple[str, Any]]) -> None:
        self.connection.execute("BEGIN IMMEDIATE")
        for statement, argument in statements:
            self.connection.execute(statement.replace("$1", "?"), (argument,))
        self.connection.execute("COMMIT")

    async def wipe(self) -> None:
        self.connection.close()
        _remove_database_files(self.path)
        self.connection = sqlite3.connect(self.path, isolation_level=None)

    async def close(self) -> None:
        self.connection.close()


def _remove_database_files(path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def asyncpg_dsn(url: str) -> str:
    """A plain postgresql:// DSN for asyncpg from any URL the product accepts."""
    return str(make_url(normalise_database_url(url)).set(drivername="postgresql"))


def sqlite_path(url: str) -> Path:
    database = make_url(url).database
    assert database, "the SQLite URL needs a file"
    return Path(database)


async def open_store(url: str) -> Store:
    if normalise_database_url(url).startswith("sqlite"):
        return SqliteStore(sqlite_path(url))
    return await PostgresStore.open(asyncpg_dsn(url))


async def refresh_statistics(url: str) -> None:
    """The planner's statistics as a server that has run a while has them (autovacuum
    gathers them within a minute of a table's growth): the warm-ups fill tables that the
    seed left empty, such as the webhook deliveries."""
    store = await open_store(url)
    try:
        await store.analyse()
    finally:
        await store.close()


# ---------------------------------------------------------------------------- rows

ACCOUNT_COLUMNS = ("workspace_id", "id", "name", "domain", "created_at", "updated_at")
CONTACT_COLUMNS = (
    "workspace_id",
    "id",
    "email",
    "email_normalized",
    "name",
    "account_id",
    "created_at",
    "updated_at",
)
ISSUE_COLUMNS = (
    "workspace_id",
    "id",
    "ticket_number",
    "subject",
    "status",
    "priority",
    "requester_id",
    "message_count",
    "created_at",
    "updated_at",
    "search_rowid",
)
MESSAGE_COLUMNS = (
    "workspace_id",
    "id",
    "issue_id",
    "sender_name",
    "body",
    "author_type",
    "author_id",
    "created_at",
)
_STATUSES = ("new",) * 2 + ("open",) * 4 + ("pending",) * 2 + ("on_hold",) + ("solved",) * 6
_PRIORITIES = ("low",) * 2 + ("normal",) * 6 + ("high",) * 2 + ("urgent",)
_FIRST = ("Ada", "Alan", "Grace", "Edsger", "Barbara", "Donald", "Margaret", "Ken", "Radia")
_LAST = ("Lovelace", "Turing", "Hopper", "Dijkstra", "Liskov", "Knuth", "Hamilton", "Perlman")


@dataclass
class Contact:
    id: str
    name: str


@dataclass
class Thread:
    """A chunk of issues with their messages, and on SQLite the rows of their full-text
    index (rowid, subject, the thread's bodies)."""

    issues: list[tuple[Any, ...]]
    messages: list[tuple[Any, ...]]
    index: list[tuple[Any, ...]]


class WorkspaceRows:
    """Every bulk row of one workspace, generated in a fixed order from a fixed seed."""

    def __init__(
        self,
        spec: WorkspaceSpec,
        workspace_id: str,
        machine_user_id: str,
        stamp: Callable[[datetime], Any],
    ) -> None:
        self.spec = spec
        self.workspace_id = workspace_id
        self.machine_user_id = machine_user_id
        self.stamp = stamp
        self.ids = IdMaker(spec.name)
        self.rng = random.Random(f"{spec.name}-data")
        self.text = Text(self.rng)
        self.start = datetime(2025, 1, 1, tzinfo=UTC)
        self.contacts: list[Contact] = []

    def accounts(self) -> Iterator[tuple[Any, ...]]:
        for number in range(self.spec.accounts):
            at = self.start + timedelta(minutes=number)
            yield (
                self.workspace_id,
                self.ids("Account", at),
                f"Company {number}",
                f"company{number}.example.com",
                self.stamp(at),
                self.stamp(at),
            )

    def contact_rows(self, account_ids: Sequence[str]) -> Iterator[tuple[Any, ...]]:
        for number in range(self.spec.contacts):
            at = self.start + timedelta(minutes=number)
            name = f"{self.rng.choice(_FIRST)} {self.rng.choice(_LAST)}"
            linked = number % 10 < 7
            account = number % len(account_ids)
            domain = f"company{account}.example.com" if linked else "mail.example.org"
            email = f"person{number}@{domain}"
            contact = Contact(self.ids("Contact", at), name)
            self.contacts.append(contact)
            yield (
                self.workspace_id,
                contact.id,
                email,
                email,
                name,
                account_ids[account] if linked else None,
                self.stamp(at),
                self.stamp(at),
            )

    def search_term(self, number: int) -> tuple[str | None, bool]:
        """The search word issue `number` holds (None for most), and whether its subject
        holds it too."""
        step = max(1, self.spec.issues // (SEARCH_HITS * len(SEARCH_TERMS)))
        if number % step:
            return None, False
        marked = number // step
        return SEARCH_TERMS[marked % len(SEARCH_TERMS)], (marked // len(SEARCH_TERMS)) % 4 == 0

    def threads(self, first_rowid: int | None) -> Iterator[Thread]:
        """Issues, messages and index entries chunk by chunk; the first `long_threads`
        issues are long. SQLite's index rows are numbered from `first_rowid` (None on
        PostgreSQL, whose index is a column the store fills)."""
        spread = timedelta(days=365) / max(1, self.spec.issues)
        issue_rows: list[tuple[Any, ...]] = []
        message_rows: list[tuple[Any, ...]] = []
        index_rows: list[tuple[Any, ...]] = []
        for number in range(1, self.spec.issues + 1):
            opened = self.start + timedelta(days=30) + spread * number
            count = (
                LONG_THREAD if number <= self.spec.long_threads else self.spec.messages_per_issue
            )
            requester = self.rng.choice(self.contacts)
            issue_id = self.ids("Issue", opened)
            term, in_subject = self.search_term(number)
            last = opened
            bodies = []
            for position in range(count):
                last = opened + timedelta(seconds=90 * position)
                by_contact = position % 2 == 0
                body = self.text.body()
                if term and position == min(2, count - 1):
                    body = f"{body} {term.capitalize()} again."
                bodies.append(body)
                message_rows.append(
                    (
                        self.workspace_id,
                        self.ids("Message", last),
                        issue_id,
                        requester.name if by_contact else "Support",
                        body,
                        "contact" if by_contact else "machine_user",
                        requester.id if by_contact else self.machine_user_id,
                        self.stamp(last),
                    )
                )
            subject = self.text.subject()
            if term and in_subject:
                subject = f"{subject} ({term})"
            rowid = None if first_rowid is None else first_rowid + number - 1
            issue_rows.append(
                (
                    self.workspace_id,
                    issue_id,
                    number,
                    subject,
                    self.rng.choice(_STATUSES),
                    self.rng.choice(_PRIORITIES),
                    requester.id,
                    count,
                    self.stamp(opened),
                    self.stamp(last),
                    rowid,
                )
            )
            # As the product's writers index a thread: its bodies one after another.
            index_rows.append((rowid, subject, "\n".join(bodies)))
            if len(message_rows) >= CHUNK:
                yield Thread(issue_rows, message_rows, index_rows)
                issue_rows, message_rows, index_rows = [], [], []
        if issue_rows:
            yield Thread(issue_rows, message_rows, index_rows)


# ---------------------------------------------------------------------------- articles


class ArticlesUnsupported(Exception):
    """The articles table has a required column this seeder does not know how to fill."""


def _article_value(
    column_name: str, column: Any, base: dict[str, Any], number: int
) -> tuple[bool, Any]:
    """(fill?, value) for one column of the articles table, by its name and type."""
    if column_name in base:
        return True, base[column_name]
    name = column_name.lower()
    if "title" in name or name == "name":
        return True, base["_title"].lower() if "normal" in name else base["_title"]
    if name in ("body", "content", "text", "body_text", "markdown"):
        return True, base["_body"]
    if "slug" in name:
        return True, f"article-{number}"
    if name == "status":
        return True, base["_status"]
    if name.startswith("published"):
        return True, base["_at"] if base["_status"] == "published" else None
    if name.endswith("_at"):
        return True, base["_at"]
    if name == "search_rowid":
        return True, None  # numbered when copied

    if column.nullable or column.server_default is not None or column.default is not None:
        return False, None
    if isinstance(column.type, Integer):
        return True, 0
    if isinstance(column.type, Boolean):
        return True, False
    raise ArticlesUnsupported(f"articles.{column_name} is required and unknown to the seeder")


def article_rows(
    table: Table, spec: WorkspaceSpec, workspace_id: str, stamp: Callable[[datetime], Any]
) -> tuple[list[str], list[tuple[Any, ...]]]:
    ids = IdMaker(f"{spec.name}-articles")
    rng = random.Random(f"{spec.name}-articles")
    text = Text(rng)
    columns = [c for c in table.columns if c.computed is None]
    names: list[str] = []
    rows: list[tuple[Any, ...]] = []
    for number in range(spec.articles):
        at = datetime(2025, 1, 1, tzinfo=UTC) + timedelta(hours=number)
        topic = TOPICS[number % len(TOPICS)]
        base = {
            "workspace_id": workspace_id,
            "id": ids("Article", at),
            "_title": f"How to fix {topic} problems ({number})",
            "_body": f"{text.body()} {topic} {text.body()}",
            "_status": "published" if number % 5 else "draft",
            "_at": stamp(at),
        }
        row: list[Any] = []
        names = []
        for column in columns:
            fill, value = _article_value(column.name, column, base, number)
            if fill:
                names.append(column.name)
                row.append(value)
        rows.append(tuple(row))
    return names, rows


# ---------------------------------------------------------------------------- seeding


def fingerprint(has_articles: bool) -> str:
    return f"v{SEED_VERSION}{'+articles' if has_articles else ''}"


async def _new_workspace(database: Database, name: str) -> tuple[str, str]:
    made = await init_workspace(database, name, "bench@example.com", "bench-password")
    owner = await machine_users.managed_machine_user(database, made.workspace.id)
    return made.workspace.id, owner.id


async def _fill(
    store: Store, spec: WorkspaceSpec, workspace_id: str, machine_user_id: str, has_articles: bool
) -> None:
    rows = WorkspaceRows(spec, workspace_id, machine_user_id, store.stamp)
    accounts = list(rows.accounts())
    await store.copy("accounts", ACCOUNT_COLUMNS, accounts)
    await store.copy("contacts", CONTACT_COLUMNS, list(rows.contact_rows([a[1] for a in accounts])))
    first_rowid = await store.first_search_rowid()
    for chunk in rows.threads(first_rowid):
        await store.copy("issues", ISSUE_COLUMNS, chunk.issues)
        await store.copy("messages", MESSAGE_COLUMNS, chunk.messages)
        await store.index_issues(workspace_id, chunk)
    await store.set_ticket_counter(workspace_id, spec.issues)
    table = metadata.tables.get("articles")
    if has_articles and spec.articles and table is not None:
        try:
            names, article_data = article_rows(table, spec, workspace_id, store.stamp)
        except ArticlesUnsupported as reason:
            print(f"  articles not seeded: {reason}")
        else:
            await _copy_articles(store, names, article_data)


async def _copy_articles(store: Store, names: list[str], rows: list[tuple[Any, ...]]) -> None:
    """Articles, and on SQLite their rows of the full-text index (the product's writers keep
    `articles_fts` in step, numbered by `articles.search_rowid`)."""
    if "search_rowid" in names:
        at = names.index("search_rowid")
        first = int(await store.value("SELECT coalesce(max(search_rowid), 0) FROM articles")) + 1
        rows = [(*row[:at], first + n, *row[at + 1 :]) for n, row in enumerate(rows)]
    await store.copy("articles", names, rows)
    indexed = ("search_rowid", "title", "body", "workspace_id")
    if "articles_fts" in await store.tables() and set(indexed) <= set(names):
        positions = [names.index(n) for n in indexed]
        index_rows = [
            (*(row[p] for p in positions[:-1]), workspace_token(row[positions[-1]])) for row in rows
        ]
        columns = ("rowid", "title", "body", WORKSPACE_COLUMN)
        await store.copy("articles_fts", columns, index_rows)


async def seed(
    url: str,
    specs: Sequence[WorkspaceSpec],
    *,
    allow_wipe: bool = True,
    log: Callable[[str], None] = print,
) -> dict[str, Seeded]:
    """Make sure every workspace of `specs` is seeded in the database at `url` (migrated
    first); reuse what a previous run seeded with the same fingerprint."""
    database_url = normalise_database_url(url)
    await asyncio.to_thread(upgrade, database_url)
    store = await open_store(url)
    try:
        has_articles = "articles" in await store.tables()
        wanted = fingerprint(has_articles)
        existing = await store.seeded()
        if any(row["fingerprint"] != wanted for row in existing.values()):
            if not allow_wipe:
                raise RuntimeError("the database holds another seed version; refusing to wipe")
            log(f"  seed version changed: wiping {make_url(database_url).database}")
            await store.wipe()
            await asyncio.to_thread(upgrade, database_url)
            existing = {}
        missing = [spec for spec in specs if spec.name not in existing]
        if missing:
            await _seed_missing(store, database_url, missing, wanted, has_articles, log)
            existing = await store.seeded()
    finally:
        await store.close()
    return {
        spec.name: Seeded(
            spec.name,
            existing[spec.name]["workspace_id"],
            existing[spec.name]["machine_user_id"],
            int(existing[spec.name]["issues"]),
        )
        for spec in specs
    }


async def _seed_missing(
    store: Store,
    database_url: str,
    missing: Sequence[WorkspaceSpec],
    wanted: str,
    has_articles: bool,
    log: Callable[[str], None],
) -> None:
    database = Database(database_url, pool_size=1)
    try:
        for spec in missing:
            started = asyncio.get_running_loop().time()
            workspace_id, machine_user_id = await _new_workspace(database, spec.name)
            await _fill(store, spec, workspace_id, machine_user_id, has_articles)
            await store.record(
                Seeded(spec.name, workspace_id, machine_user_id, spec.issues), wanted
            )
            elapsed = asyncio.get_running_loop().time() - started
            log(f"  seeded {spec.name}: {spec.issues:,} issues in {elapsed:.1f} s")
        # Always, even after only the small workspaces made anew each run: their deleted
        # rows, and on PostgreSQL the GIN index's pending list (which every search reads
        # through until a vacuum merges it), would otherwise grow from run to run.
        await store.analyse()
    finally:
        await database.dispose()


async def new_key(url: str, workspace_id: str) -> str:
    """A fresh Full-access key of the workspace's managed machine user (secrets are never
    stored, so every run makes its own)."""
    database = Database(normalise_database_url(url), pool_size=1)
    try:
        owner = await machine_users.managed_machine_user(database, workspace_id)
        created = await api_keys.create_api_key(
            database,
            audit.CLI_ACTOR,
            workspace_id,
            machine_user_id=owner.id,
            name="bench",
            scopes=list(PRESETS["full_access"]),
        )
        return created.secret
    finally:
        await database.dispose()


async def feed(url: str, workspace_id: str) -> None:
    """Machine users and issues made through the product's actions, so that the workspace
    lists machine users and its change feed holds more than a page of events. The writes
    workspace gets them: it is made anew each run, so they never pile up."""
    database = Database(normalise_database_url(url), pool_size=1)
    try:
        for n in range(FEED_MACHINE_USERS):
            await machine_users.create_machine_user(
                database, audit.CLI_ACTOR, workspace_id, f"Integration {n}", "Bench integration"
            )
        for n in range(FEED_ISSUES):
            new = NewIssue(
                f"Feed issue {n}",
                "The nightly sync stopped after the upgrade.",
                f"feed{n}@customer{n % 10}.example.com",
                f"Feed requester {n}",
            )
            await create_issue(database, audit.CLI_ACTOR, workspace_id, new)
    finally:
        await database.dispose()


# ---------------------------------------------------------------------------- run-time help


async def fetch(url: str, statement: str, *args: Any) -> list[tuple[Any, ...]]:
    """One read with the raw driver; `statement` uses $n placeholders."""
    if normalise_database_url(url).startswith("sqlite"):
        connection = sqlite3.connect(sqlite_path(url))
        try:
            marks = statement
            for position in range(len(args), 0, -1):
                marks = marks.replace(f"${position}", f"?{position}")
            return list(connection.execute(marks, args))
        finally:
            connection.close()
    pg = await asyncpg.connect(asyncpg_dsn(url))
    try:
        return [tuple(row) for row in await pg.fetch(statement, *args)]
    finally:
        await pg.close()


async def issue_ids(url: str, workspace_id: str, tickets: range, count: int) -> list[str]:
    """Up to `count` issue ids spread evenly over the ticket numbers in `tickets`."""
    step = max(1, len(tickets) // max(1, count))
    rows = await fetch(
        url,
        "SELECT id FROM issues WHERE workspace_id = $1 AND ticket_number >= $2 "
        "AND ticket_number < $3 AND (ticket_number - $2) % $4 = 0 ORDER BY ticket_number",
        workspace_id,
        tickets.start,
        tickets.stop,
        step,
    )
    return [row[0] for row in rows[:count]]


async def drop_workspace(url: str, name: str) -> None:
    """Delete a seeded workspace and everything in it (the writes workspace is made anew
    each run, so what the write scenarios add does not pile up)."""
    store = await open_store(url)
    try:
        seeded = (await store.seeded()).get(name)
        if seeded is None:
            return
        workspace_id = seeded["workspace_id"]
        present = await store.tables()
        statements = []
        if "issues_fts" in present:  # SQLite's issue index, numbered by issues.search_rowid
            statements.append(
                (
                    "DELETE FROM issues_fts WHERE rowid IN "
                    "(SELECT search_rowid FROM issues WHERE workspace_id = $1)",
                    workspace_id,
                )
            )
        statements += [
            (f"DELETE FROM {table.name} WHERE workspace_id = $1", workspace_id)
            for table in reversed(metadata.sorted_tables)
            if "workspace_id" in table.c and table.name in present
        ]
        statements.append(("DELETE FROM workspaces WHERE id = $1", workspace_id))
        statements.append((f"DELETE FROM {SEED_TABLE} WHERE name = $1", name))
        await store.run_all(statements)
    finally:
        await store.close()
