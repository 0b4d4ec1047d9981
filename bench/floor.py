"""The floor: what the bench's operations cost when written by hand.

A bare ASGI endpoint that runs the same SQL as the product (the API-key lookup included)
with the raw driver (asyncpg, or sqlite3 on SQLite) and answers the same JSON, served by
uvicorn with the settings of `supportdesk serve`. It understands exactly the operations the
bench sends, picked by `operationName`; it parses no GraphQL and checks no scopes beyond
the key being active. `python -m bench.floor --database-url URL --port P --workers N`.
"""

from __future__ import annotations

import argparse
import os
import re
import sqlite3
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

import asyncpg
import orjson
import uvicorn

from supportdesk import API_VERSION
from supportdesk.auth.key_derivation import derive
from supportdesk.auth.keys import hash_secret, kind_of_wellformed
from supportdesk.auth.server_key import CURSOR_KEY_PURPOSE
from supportdesk.db.search import workspace_token
from supportdesk.domain.ids import new_id
from supportdesk.domain.pagination import Cursors

ENV_URL = "BENCH_FLOOR_DATABASE_URL"
EMAIL = re.compile(
    r"\A[^@\s]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+\Z"
)
PRIORITIES = ("low", "normal", "high", "urgent")
# `IssueSimple` asks for messages(first: 20) and no page info: 20 rows are all it needs.
SIMPLE_PAGE = 20

# The product's statements, in each driver's parameter style.
KEY_LOOKUP = (
    "SELECT api_keys.id, api_keys.workspace_id, api_keys.key_prefix, api_keys.kind, "
    "api_keys.scopes, api_keys.expires_at, api_keys.revoked_at, api_keys.last_used_at, "
    "api_keys.machine_user_id, machine_users.name AS machine_user_name, "
    "workspaces.name AS workspace_name FROM api_keys "
    "JOIN machine_users ON machine_users.workspace_id = api_keys.workspace_id "
    "AND machine_users.id = api_keys.machine_user_id "
    "JOIN workspaces ON workspaces.id = api_keys.workspace_id WHERE api_keys.secret_hash = $1"
)
ISSUE_COLUMNS = (
    "issues.id, issues.workspace_id, issues.ticket_number, issues.subject, issues.status, "
    "issues.priority, issues.requester_id, issues.message_count, issues.created_at, "
    "issues.updated_at"
)
ONE_ISSUE = f"SELECT {ISSUE_COLUMNS} FROM issues WHERE issues.workspace_id = $1 AND issues.id = $2"
LOCKED_ISSUE = ONE_ISSUE + " FOR UPDATE"
MESSAGE_COLUMNS = (
    "messages.id, messages.workspace_id, messages.issue_id, messages.sender_name, "
    "messages.body, messages.author_type, messages.author_id, messages.created_at"
)
THREAD = (
    f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE messages.workspace_id = $1 "
    "AND messages.issue_id = $2 ORDER BY messages.id LIMIT $3"
)
ISSUE_PAGE = (
    f"SELECT {ISSUE_COLUMNS} FROM issues WHERE issues.workspace_id = $1 ORDER BY issues.id LIMIT $2"
)
CONTACTS = (
    "SELECT contacts.id, contacts.workspace_id, contacts.email, contacts.name, "
    "contacts.account_id, contacts.created_at, contacts.updated_at FROM contacts "
    "WHERE contacts.workspace_id = $1 AND contacts.id IN ({ids})"
)
UPSERT_REQUESTER = (
    "INSERT INTO contacts (workspace_id, id, email, email_normalized, name, account_id, "
    "created_at, updated_at) VALUES ($1::VARCHAR, $2, $3, $4, $5, (SELECT accounts.id FROM "
    "accounts WHERE accounts.workspace_id = $1::VARCHAR AND accounts.domain = $6), $7, $7) "
    "ON CONFLICT (workspace_id, email_normalized) DO UPDATE SET name = "
    "coalesce(contacts.name, excluded.name) RETURNING contacts.id, contacts.created_at"
)
# The ticket number and the events' sequences, as the product takes them: with what it
# needs to know whether to list the workspace's endpoints (domain/events/log.py).
NEXT_TICKET = (
    "UPDATE workspaces SET last_ticket_number = (workspaces.last_ticket_number + 1), "
    "last_event_sequence = (workspaces.last_event_sequence + $2) WHERE workspaces.id = $1 "
    "RETURNING workspaces.last_ticket_number, workspaces.last_event_sequence, "
    "(SELECT seen.last_event_sequence FROM workspaces AS seen WHERE seen.id = $1), "
    "(SELECT count(*) FROM webhook_endpoints WHERE webhook_endpoints.workspace_id = $1 "
    "AND webhook_endpoints.enabled)"
)
ISSUE_VALUES = (
    "INSERT INTO issues (workspace_id, id, ticket_number, subject, status, priority, "
    "requester_id, message_count, created_at, updated_at, {index}) "
    "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9, {value})"
)
# A new issue's search index: PostgreSQL's vector in its row, SQLite's FTS5 row numbered
# after the last (db/search.py).
INSERT_ISSUE_POSTGRES = ISSUE_VALUES.format(
    index="search_vector",
    value="setweight(to_tsvector('english'::regconfig, $10), 'A') || "
    "setweight(to_tsvector('english'::regconfig, $11), 'B')",
)
INSERT_ISSUE_SQLITE = ISSUE_VALUES.format(index="search_rowid", value="$10")
LAST_SEARCH_ROWID = "SELECT coalesce(max(issues.search_rowid), 0) FROM issues"
INSERT_ISSUE_TEXTS = (
    "INSERT INTO issues_fts (rowid, subject, body, workspace_id) VALUES ($1, $2, $3, $4)"
)
INSERT_EVENT = (
    "INSERT INTO events (workspace_id, sequence, id, type, api_version, actor, data, "
    "created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"
)
INSERT_MESSAGE = (
    "INSERT INTO messages (workspace_id, id, issue_id, sender_name, body, author_type, "
    "author_id, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"
)
SAVE_REPLY = (
    "UPDATE issues SET updated_at = $3, message_count = (issues.message_count + 1), "
    f"status = $4 WHERE issues.workspace_id = $1 AND issues.id = $2 RETURNING {ISSUE_COLUMNS}"
)


class Unauthenticated(Exception):
    pass


def qmarks(statement: str) -> str:
    """asyncpg's $n placeholders (and casts) as sqlite3's ?n."""
    return re.sub(r"\$(\d+)(::\w+)?", r"?\1", statement)


# ---------------------------------------------------------------------------- JSON


def iso(value: datetime | str) -> str:
    """RFC 3339 UTC with milliseconds, as the product's DateTime scalar writes it."""
    if isinstance(value, str):  # SQLite: 'YYYY-MM-DD HH:MM:SS.ffffff', naive UTC
        return f"{value[:10]}T{value[11:23]}Z"
    return (
        value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{value.microsecond // 1000:03d}Z"
    )


def message_json(row: Any) -> dict[str, Any]:
    return {
        "id": row["id"],
        "senderName": row["sender_name"],
        "body": row["body"],
        "createdAt": iso(row["created_at"]),
    }


# Cursors are signed like the service's (an HMAC each), so the floor does that work too,
# with the key the service derives from the bench's SUPPORTDESK_SECRET_KEY.
CURSOR_KEY = derive(os.environ.get("SUPPORTDESK_SECRET_KEY", ""), CURSOR_KEY_PURPOSE)


def use_secret(secret: str) -> None:
    """Sign cursors as a service whose server key is `secret` does."""
    global CURSOR_KEY
    CURSOR_KEY = derive(secret, CURSOR_KEY_PURPOSE)


def connection_json(
    nodes: list[dict[str, Any]], has_next: bool, workspace_id: str, **extra: Any
) -> dict[str, Any]:
    cursors = Cursors(CURSOR_KEY, workspace_id)
    edges = [{"cursor": cursors.encode(node["id"]), "node": node} for node in nodes]
    return {
        **extra,
        "edges": edges,
        "pageInfo": {
            "hasNextPage": has_next,
            "endCursor": edges[-1]["cursor"] if edges else None,
        },
    }


def issue_json(row: Any) -> dict[str, Any]:
    return {
        "id": row["id"],
        "ticketNumber": row["ticket_number"],
        "subject": row["subject"],
        "status": row["status"],
        "priority": row["priority"],
        "createdAt": iso(row["created_at"]),
        "updatedAt": iso(row["updated_at"]),
        "messageCount": row["message_count"],
    }


def mutation_error(message: str, *fields: str) -> dict[str, Any]:
    return {"code": "VALIDATION_FAILED", "message": message, "fields": list(fields)}


def checked_new_issue(values: dict[str, Any]) -> tuple[dict[str, Any] | None, list[str]]:
    subject = (values.get("subject") or "").strip()
    body = values.get("body") or ""
    email = (values.get("requesterEmail") or "").strip()
    name = (values.get("requesterName") or "").strip() or None
    priority = (values.get("priority") or "normal").strip().lower()
    bad = [
        field
        for field, wrong in (
            ("subject", not subject or len(subject) > 255),
            ("body", not body.strip() or len(body) > 65_536),
            ("requesterEmail", len(email) > 254 or not EMAIL.match(email)),
            ("requesterName", name is not None and len(name) > 200),
            ("priority", priority not in PRIORITIES),
        )
        if wrong
    ]
    clean = {"subject": subject, "body": body, "email": email, "name": name, "priority": priority}
    return (None if bad else clean), bad


# ---------------------------------------------------------------------------- backends


class PostgresFloor:
    def __init__(self, dsn: str) -> None:
        self.dsn = dsn
        self.pool: asyncpg.Pool | None = None

    async def start(self) -> None:
        self.pool = await asyncpg.create_pool(self.dsn, min_size=2, max_size=10)

    async def stop(self) -> None:
        if self.pool is not None:
            await self.pool.close()

    async def run(
        self, secret_hash: str, work: Callable[[Any, Any], Awaitable[dict[str, Any]]]
    ) -> dict[str, Any]:
        """Authenticate, then do the operation, on one pooled connection."""
        assert self.pool is not None
        async with self.pool.acquire() as connection:
            key = await connection.fetchrow(KEY_LOOKUP, secret_hash)
            check_key(key)
            return await work(connection, key)

    async def issue(self, con: Any, key: Any, issue_id: str, first: int) -> dict[str, Any] | None:
        row = await con.fetchrow(ONE_ISSUE, key["workspace_id"], issue_id)
        if row is None:
            return None
        thread = await con.fetch(THREAD, key["workspace_id"], issue_id, first + 1)
        return issue_with_thread(row, thread, first)

    async def simple_issue(self, con: Any, key: Any, issue_id: str) -> dict[str, Any] | None:
        row = await con.fetchrow(ONE_ISSUE, key["workspace_id"], issue_id)
        if row is None:
            return None
        thread = await con.fetch(THREAD, key["workspace_id"], issue_id, SIMPLE_PAGE)
        return simple_issue_with_thread(row, thread)

    async def issues(self, con: Any, key: Any, first: int) -> dict[str, Any]:
        rows = await con.fetch(ISSUE_PAGE, key["workspace_id"], first + 1)
        ids = sorted({row["requester_id"] for row in rows[:first]})
        marks = ", ".join(f"${n + 2}" for n in range(len(ids)))
        contacts = await con.fetch(CONTACTS.format(ids=marks), key["workspace_id"], *ids)
        return issue_page(rows, contacts, first, key["workspace_id"])

    async def create_issue(self, con: Any, key: Any, new: dict[str, Any]) -> dict[str, Any]:
        moment = datetime.now(UTC)
        workspace_id = key["workspace_id"]
        issue_id = new_id("Issue", moment)
        message_id = new_id("Message", moment)
        async with con.transaction():
            requester = await con.fetchrow(
                UPSERT_REQUESTER,
                workspace_id,
                new_id("Contact", moment),
                new["email"],
                new["email"].lower(),
                new["name"],
                new["email"].rsplit("@", 1)[-1].lower(),
                moment,
            )
            made = requester["created_at"] == moment
            number, last, *_ = await con.fetchrow(NEXT_TICKET, workspace_id, 1 + made)
            await con.execute(
                INSERT_ISSUE_POSTGRES,
                *(workspace_id, issue_id, number, new["subject"], "new", new["priority"]),
                *(requester["id"], 1, moment, new["subject"], new["body"]),
            )
            await con.execute(
                INSERT_MESSAGE,
                workspace_id,
                message_id,
                issue_id,
                new["name"] or new["email"],
                new["body"],
                "contact",
                requester["id"],
                moment,
            )
            events = issue_events(key, new, requester["id"], made, issue_id, message_id, number)
            await con.executemany(INSERT_EVENT, event_rows(key, events, last, moment))
        return created_issue(issue_id, number, new, moment)

    async def reply(self, con: Any, key: Any, issue_id: str, body: str) -> dict[str, Any]:
        moment = datetime.now(UTC)
        workspace_id = key["workspace_id"]
        async with con.transaction():
            issue = await con.fetchrow(LOCKED_ISSUE, workspace_id, issue_id)
            if issue is None or issue["status"] == "closed":
                return {"issue": None, "message": None, "error": {"code": "NOT_FOUND"}}
            message_id = new_id("Message", moment)
            sender = key["machine_user_name"]
            await con.execute(
                INSERT_MESSAGE,
                workspace_id,
                message_id,
                issue_id,
                sender,
                body,
                "machine_user",
                key["machine_user_id"],
                moment,
            )
            saved = await con.fetchrow(SAVE_REPLY, workspace_id, issue_id, moment, issue["status"])
        return replied(saved, message_id, sender, body, moment)


class SqliteFloor:
    """sqlite3 on the event loop's thread: statements take microseconds, and a hand-written
    endpoint would not pay for a thread hop per statement."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.reader: sqlite3.Connection | None = None
        self.writer: sqlite3.Connection | None = None

    def _connect(self) -> sqlite3.Connection:
        connection = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        connection.row_factory = sqlite3.Row
        for pragma in ("journal_mode=WAL", "foreign_keys=ON", "busy_timeout=10000"):
            connection.execute(f"PRAGMA {pragma}")
        connection.execute("PRAGMA synchronous=NORMAL")
        return connection

    async def start(self) -> None:
        self.reader = self._connect()
        self.writer = self._connect()

    async def stop(self) -> None:
        for connection in (self.reader, self.writer):
            if connection is not None:
                connection.close()

    async def run(
        self, secret_hash: str, work: Callable[[Any, Any], Awaitable[dict[str, Any]]]
    ) -> dict[str, Any]:
        assert self.reader is not None
        key = self.reader.execute(qmarks(KEY_LOOKUP), (secret_hash,)).fetchone()
        check_key(key)
        return await work(self.reader, key)

    async def issue(self, con: Any, key: Any, issue_id: str, first: int) -> dict[str, Any] | None:
        row = con.execute(qmarks(ONE_ISSUE), (key["workspace_id"], issue_id)).fetchone()
        if row is None:
            return None
        thread = con.execute(qmarks(THREAD), (key["workspace_id"], issue_id, first + 1)).fetchall()
        return issue_with_thread(row, thread, first)

    async def simple_issue(self, con: Any, key: Any, issue_id: str) -> dict[str, Any] | None:
        row = con.execute(qmarks(ONE_ISSUE), (key["workspace_id"], issue_id)).fetchone()
        if row is None:
            return None
        values = (key["workspace_id"], issue_id, SIMPLE_PAGE)
        thread = con.execute(qmarks(THREAD), values).fetchall()
        return simple_issue_with_thread(row, thread)

    async def issues(self, con: Any, key: Any, first: int) -> dict[str, Any]:
        rows = con.execute(qmarks(ISSUE_PAGE), (key["workspace_id"], first + 1)).fetchall()
        ids = sorted({row["requester_id"] for row in rows[:first]})
        marks = ", ".join(f"?{n + 2}" for n in range(len(ids)))
        contacts = con.execute(
            qmarks(CONTACTS.format(ids=marks)), (key["workspace_id"], *ids)
        ).fetchall()
        return issue_page(rows, contacts, first, key["workspace_id"])

    def _write(self, work: Callable[[sqlite3.Connection], Any]) -> Any:
        assert self.writer is not None
        self.writer.execute("BEGIN IMMEDIATE")
        try:
            result = work(self.writer)
        except BaseException:
            self.writer.execute("ROLLBACK")
            raise
        self.writer.execute("COMMIT")
        return result

    async def create_issue(self, con: Any, key: Any, new: dict[str, Any]) -> dict[str, Any]:
        moment = datetime.now(UTC)
        stamp = moment.replace(tzinfo=None).isoformat(" ", "microseconds")
        workspace_id = key["workspace_id"]
        issue_id = new_id("Issue", moment)

        message_id = new_id("Message", moment)

        def work(db: sqlite3.Connection) -> int:
            requester_id, created_at = db.execute(
                qmarks(UPSERT_REQUESTER),
                (
                    workspace_id,
                    new_id("Contact", moment),
                    new["email"],
                    new["email"].lower(),
                    new["name"],
                    new["email"].rsplit("@", 1)[-1].lower(),
                    stamp,
                ),
            ).fetchone()
            made = created_at == stamp
            counter = db.execute(qmarks(NEXT_TICKET), (workspace_id, 1 + made)).fetchone()
            number: int = counter[0]
            rowid = db.execute(LAST_SEARCH_ROWID).fetchone()[0] + 1
            db.execute(
                qmarks(INSERT_ISSUE_SQLITE),
                (
                    *(workspace_id, issue_id, number, new["subject"], "new", new["priority"]),
                    *(requester_id, 1, stamp, rowid),
                ),
            )
            db.execute(
                qmarks(INSERT_MESSAGE),
                (
                    *(workspace_id, message_id, issue_id),
                    *(new["name"] or new["email"], new["body"], "contact", requester_id, stamp),
                ),
            )
            texts = (rowid, new["subject"], new["body"], workspace_token(workspace_id))
            db.execute(qmarks(INSERT_ISSUE_TEXTS), texts)
            events = issue_events(key, new, requester_id, made, issue_id, message_id, number)
            db.executemany(qmarks(INSERT_EVENT), event_rows(key, events, counter[1], stamp))
            return number

        number = self._write(work)
        return created_issue(issue_id, number, new, moment)

    async def reply(self, con: Any, key: Any, issue_id: str, body: str) -> dict[str, Any]:
        moment = datetime.now(UTC)
        stamp = moment.replace(tzinfo=None).isoformat(" ", "microseconds")
        workspace_id = key["workspace_id"]
        message_id = new_id("Message", moment)
        sender = key["machine_user_name"]

        def work(db: sqlite3.Connection) -> Any:
            issue = db.execute(qmarks(ONE_ISSUE), (workspace_id, issue_id)).fetchone()
            if issue is None or issue["status"] == "closed":
                return None
            db.execute(
                qmarks(INSERT_MESSAGE),
                (
                    *(workspace_id, message_id, issue_id, sender, body, "machine_user"),
                    *(key["machine_user_id"], stamp),
                ),
            )
            return db.execute(
                qmarks(SAVE_REPLY), (workspace_id, issue_id, stamp, issue["status"])
            ).fetchone()

        saved = self._write(work)
        if saved is None:
            return {"issue": None, "message": None, "error": {"code": "NOT_FOUND"}}
        return replied(saved, message_id, sender, body, moment)


def check_key(key: Any) -> None:
    if key is None or key["revoked_at"] is not None:
        raise Unauthenticated
    expires = key["expires_at"]
    if expires is not None and iso(expires) <= iso(datetime.now(UTC)):
        raise Unauthenticated


def issue_with_thread(row: Any, thread: list[Any], first: int) -> dict[str, Any]:
    messages = connection_json(
        [message_json(m) for m in thread[:first]],
        len(thread) > first,
        row["workspace_id"],
        totalCount=row["message_count"],
    )
    return {**issue_json(row), "messages": messages}


def simple_issue_with_thread(row: Any, thread: list[Any]) -> dict[str, Any]:
    """The like-for-like shape: no cursors, page info or count."""
    edges = [
        {
            "node": {
                "senderName": m["sender_name"],
                "body": m["body"],
                "createdAt": iso(m["created_at"]),
            }
        }
        for m in thread
    ]
    return {**issue_json(row), "messages": {"edges": edges}}


def issue_page(
    rows: list[Any], contacts: list[Any], first: int, workspace_id: str
) -> dict[str, Any]:
    people = {c["id"]: {"id": c["id"], "email": c["email"], "name": c["name"]} for c in contacts}
    nodes = [
        {
            "id": row["id"],
            "ticketNumber": row["ticket_number"],
            "subject": row["subject"],
            "status": row["status"],
            "priority": row["priority"],
            "createdAt": iso(row["created_at"]),
            "requester": people.get(row["requester_id"]),
        }
        for row in rows[:first]
    ]
    return connection_json(nodes, len(rows) > first, workspace_id)


def issue_events(
    key: Any,
    new: dict[str, Any],
    requester_id: str,
    made: bool,
    issue_id: str,
    message_id: str,
    number: int,
) -> list[tuple[str, dict[str, Any]]]:
    """The events a new issue records (CONTRACT section 11): `contact.created` for a new
    requester, then `issue.created`. Their instants are the request's."""
    moment = datetime.now(UTC)
    at = iso(moment)
    requester = {"id": requester_id, "email": new["email"], "name": new["name"]}
    issue = {
        **created_issue(issue_id, number, new, moment)["issue"],
        "messageCount": 1,
        "updatedAt": at,
        "requester": requester,
        "assignee": None,
    }
    message = {
        "id": message_id,
        "issueId": issue_id,
        "senderName": new["name"] or new["email"],
        "body": new["body"],
        "createdAt": at,
        "visibility": "public",
    }
    contact = {**requester, "accountId": None, "createdAt": at, "updatedAt": at}
    made_contact = [("contact.created", {"contact": contact})] if made else []
    return [*made_contact, ("issue.created", {"issue": issue, "message": message})]


def event_rows(
    key: Any, events: list[tuple[str, dict[str, Any]]], last: int, moment: Any
) -> list[tuple[Any, ...]]:
    workspace_id = key["workspace_id"]
    actor = orjson.dumps(
        {"type": "machine_user", "id": key["machine_user_id"], "name": key["machine_user_name"]}
    ).decode()
    first = last - len(events) + 1
    return [
        (
            *(workspace_id, first + offset, new_id("Event", datetime.now(UTC)), kind),
            *(API_VERSION, actor, orjson.dumps(data).decode(), moment),
        )
        for offset, (kind, data) in enumerate(events)
    ]


def created_issue(
    issue_id: str, number: int, new: dict[str, Any], moment: datetime
) -> dict[str, Any]:
    issue = {
        "id": issue_id,
        "ticketNumber": number,
        "subject": new["subject"],
        "status": "new",
        "priority": new["priority"],
        "createdAt": iso(moment),
    }
    return {"issue": issue, "error": None}


def replied(
    saved: Any, message_id: str, sender: str, body: str, moment: datetime
) -> dict[str, Any]:
    issue = {
        "id": saved["id"],
        "status": saved["status"],
        "messageCount": saved["message_count"],
        "updatedAt": iso(saved["updated_at"]),
    }
    message = {"id": message_id, "senderName": sender, "body": body, "createdAt": iso(moment)}
    return {"issue": issue, "message": message, "error": None}


def api_info(key: Any) -> dict[str, Any]:
    return {
        "apiVersion": API_VERSION,
        "workspace": {"id": key["workspace_id"], "name": key["workspace_name"]},
        "key": {
            "id": key["id"],
            "keyPrefix": key["key_prefix"],
            "scopes": sorted(key["scopes"].split()),
            "expiresAt": iso(key["expires_at"]) if key["expires_at"] else None,
        },
        "machineUser": {"id": key["machine_user_id"], "name": key["machine_user_name"]},
    }


# ---------------------------------------------------------------------------- operations

Backend = PostgresFloor | SqliteFloor


async def operate(backend: Backend, secret_hash: str, payload: dict[str, Any]) -> dict[str, Any]:
    """The `data` of the bench operation named by `operationName`."""
    name = payload.get("operationName")
    variables = payload.get("variables") or {}

    async def work(con: Any, key: Any) -> dict[str, Any]:
        if name == "Issue":
            found = await backend.issue(con, key, variables["id"], variables.get("first", 25))
            return {"issue": found}
        if name == "IssueSimple":
            return {"issue": await backend.simple_issue(con, key, variables["id"])}
        if name == "Issues":
            return {"issues": await backend.issues(con, key, variables.get("first", 25))}
        if name == "ApiInfo":
            return {"apiInfo": api_info(key)}
        if name == "CreateIssue":
            new, bad = checked_new_issue(variables["input"])
            if new is None:
                failed = {"issue": None, "error": mutation_error("Invalid input.", *bad)}
                return {"createIssue": failed}
            return {"createIssue": await backend.create_issue(con, key, new)}
        if name == "ReplyToIssue":
            values = variables["input"]
            return {
                "replyToIssue": await backend.reply(con, key, values["issueId"], values["body"])
            }
        raise LookupError(name)

    return await backend.run(secret_hash, work)


def secret_hash_of(authorization: str) -> str:
    """The product's checks before any lookup: the scheme, the secret's shape and checksum."""
    scheme, _, secret = authorization.strip().partition(" ")
    secret = secret.strip()
    if scheme.lower() != "bearer" or kind_of_wellformed(secret) is None:
        raise Unauthenticated
    return hash_secret(secret)


def make_backend(url: str) -> Backend:
    if url.startswith("sqlite"):
        return SqliteFloor(url.split(":///", 1)[1])
    dsn = re.sub(r"^postgres(ql)?(\+\w+)?://", "postgresql://", url)
    return PostgresFloor(dsn)


class FloorApp:
    def __init__(self, url: str, secret: str | None = None) -> None:
        if secret is not None:
            use_secret(secret)
        self.backend = make_backend(url)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["path"] == "/healthz":
            await _answer(send, 200, b'{"status":"ok"}')
            return
        body = bytearray()
        while True:
            event = await receive()
            body.extend(event.get("body", b""))
            if not event.get("more_body"):
                break
        headers = dict(scope["headers"])
        try:
            secret_hash = secret_hash_of(headers.get(b"authorization", b"").decode())
            data = await operate(self.backend, secret_hash, orjson.loads(body))
        except Unauthenticated:
            await _answer(send, 401, b'{"errors":[{"message":"The API key is not valid."}]}')
            return
        await _answer(send, 200, orjson.dumps({"data": data}))

    async def _lifespan(self, receive: Any, send: Any) -> None:
        while True:
            event = await receive()
            if event["type"] == "lifespan.startup":
                await self.backend.start()
                await send({"type": "lifespan.startup.complete"})
            elif event["type"] == "lifespan.shutdown":
                await self.backend.stop()
                await send({"type": "lifespan.shutdown.complete"})
                return


async def _answer(send: Any, status: int, body: bytes) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json; charset=utf-8"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def create_app() -> FloorApp:
    """uvicorn's factory: each worker process builds its own app and pool."""
    return FloorApp(os.environ[ENV_URL])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8100)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    os.environ[ENV_URL] = args.database_url
    # The settings of `supportdesk serve`.
    uvicorn.run(
        "bench.floor:create_app",
        factory=True,
        host=args.host,
        port=args.port,
        workers=args.workers,
        loop="uvloop",
        http="httptools",
        access_log=False,
        log_level="warning",
    )


if __name__ == "__main__":
    main()
