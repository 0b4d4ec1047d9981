"""Checks that every statement touching a tenant table is confined to one workspace.

A statement is confined when each tenant table in it (each alias, each join) is read or
changed under a condition on `workspace_id` (`workspaces` on its `id`), compared with a value
or with the same column of a table so confined, or, for INSERT, writes the column: what a
distributed PostgreSQL needs to send it to one shard (docs/deploy.md). The few statements
that must look across workspaces by design are listed with their reason.

Statements are captured from the in-thread test servers (tests/servers.py) and from every
subprocess the tests start with a traced environment (`serve`, the CLI).
"""

from __future__ import annotations

import atexit
import json
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import inspect

from supportdesk.db.tables import metadata

TENANT_TABLES = frozenset(
    name for name, table in metadata.tables.items() if "workspace_id" in table.columns
)
# The column each table would be distributed by (docs/deploy.md): a workspace is its own
# tenant, found by its id.
DISTRIBUTION_COLUMN = dict.fromkeys(TENANT_TABLES, "workspace_id") | {"workspaces": "id"}

# The statements allowed to look across workspaces, each for one table and why: the
# condition that stands in for the workspace's.
CROSS_WORKSPACE = {
    # Authentication: a key is found by its hash before anyone knows its workspace.
    ("api_keys", "WHERE api_keys.secret_hash ="): "bearer key lookup",
    # Mail is routed by its recipient's address, or by the inbound token a provider sends,
    # before anyone knows the workspace (docs/email.md); an address is claimed across them.
    ("mailboxes", "WHERE mailboxes.address ="): "mail routing by address",
    ("mailboxes", "WHERE mailboxes.token_hash ="): "inbound token lookup",
    # The IMAP poller (imap/checkpoints.py) looks for every mailbox with an IMAP URL.
    ("mailboxes", "WHERE mailboxes.imap_url_sealed IS NOT NULL"): "mailboxes to poll",
    # A mail domain is one workspace's (domain/mailboxes/domains.py): the operator's grant
    # names the others' mailboxes on it, and a released hold passes to one of them.
    ("mailboxes", "WHERE lower(mailboxes.address) LIKE"): "a mail domain's mailboxes, of all",
    # The operator's CLI revokes a key by id alone (CONTRACT section 10: `keys revoke KEY_ID`).
    (
        "api_keys",
        "SELECT api_keys.workspace_id FROM api_keys WHERE api_keys.id =",
    ): "CLI revoke finds the key's workspace",
    # Org admins log in with an e-mail that may belong to several workspaces.
    ("org_admins", "WHERE org_admins.email_normalized ="): "settings page login",
    # SQLite's FTS5 indexes are one table each for all workspaces: their integer row ids
    # (assigned by the writers, under SQLite's single write lock) must be unique across them.
    ("articles", "SELECT coalesce(max(articles.search_rowid)"): "numbering SQLite's full-text rows",
    ("issues", "SELECT coalesce(max(issues.search_rowid)"): "numbering SQLite's full-text rows",
    # Retention (domain/events/retention.py) finds expired events of every workspace by age,
    # then deletes them workspace by workspace.
    ("events", "WHERE events.created_at <"): "retention finds expired events",
    ("workspaces", "/* retention: every workspace */"): "retention's list of workspaces",
    # The webhook dispatcher takes due deliveries of any workspace from one queue.
    ("webhook_deliveries", "WHERE webhook_deliveries.next_attempt_at <="): "dispatch queue",
    # So does the mailer from the outbox (dispatch/mail_queue.py), and leases what it took.
    ("email_outbox", "WHERE email_outbox.next_attempt_at <="): "mail dispatch queue",
    # Migrations on SQLite rebuild a changed table by copying every row (Alembic's batch mode).
    ("*", "INSERT INTO _alembic_tmp_"): "SQLite migrations copy whole tables",
    # A migration that changes the rows of every workspace says so (migration 0012).
    ("*", "/* migration: every workspace */"): "a migration over every workspace",
}

# A table, and its alias if it has one: a word after it that is no keyword (SQLite's
# `INDEXED BY ix` and `NOT INDEXED` name an index, not an alias).
_TABLE_USE = re.compile(
    r"\b(FROM|JOIN|UPDATE|INTO)\s+\"?(\w+)\"?(?:\s+(?:AS\s+)?\"?(?!(?:ON|WHERE|SET|JOIN|VALUES"
    r"|LEFT|INNER|OUTER|CROSS|GROUP|ORDER|LIMIT|RETURNING|DEFAULT|INDEXED|NOT)\b)(\w+)\"?)?",
    re.IGNORECASE,
)


def tenant_tables_in(statement: str) -> set[str]:
    return {table for _, table, _ in _TABLE_USE.findall(statement) if table in DISTRIBUTION_COLUMN}


def _inserted_columns(text: str, table: str) -> str:
    found = re.search(rf"INTO \"?{table}\"? ?\(([^)]*)\)", text, re.IGNORECASE)
    return found.group(1) if found else ""


def _excused(table: str, text: str) -> bool:
    return any(t in (table, "*") and marker in text for t, marker in CROSS_WORKSPACE)


def unconfined_tables(statement: str) -> set[str]:
    """The tables a statement reads or changes without naming one workspace: for each use
    of a tenant table (under its alias, if any), its distribution column must be compared
    with a value or with another table's (a join within the workspace); an INSERT must
    write it."""
    text = " ".join(statement.split())
    loose = set()
    for keyword, table, alias in _TABLE_USE.findall(text):
        column = DISTRIBUTION_COLUMN.get(table)
        if column is None or _excused(table, text):
            continue
        if keyword.upper() == "INTO":
            if not re.search(rf"\b{column}\b", _inserted_columns(text, table)):
                loose.add(table)
            continue
        name = re.escape(alias or table)
        compared = rf"(?<![\w.]){name}\.{column}\s*(=|IN\b)|=\s*{name}\.{column}\b"
        if not re.search(compared, text, re.IGNORECASE):
            loose.add(table)
    return loose


def is_confined(statement: str) -> bool:
    """Whether every tenant table in a statement is confined to a workspace."""
    return not unconfined_tables(statement)


@dataclass(frozen=True)
class ForeignKey:
    columns: tuple[str, ...]
    table: str
    referred: tuple[str, ...]


@dataclass(frozen=True)
class TableShape:
    """What a distributed database needs to know of a table's keys."""

    primary: tuple[str, ...]
    unique: tuple[tuple[str, ...], ...]  # unique constraints and unique indexes
    foreign: tuple[ForeignKey, ...]


def table_shapes(sync_connection: Any) -> dict[str, TableShape]:
    """Every table of the connected database (for `tests/db/inspection.py`)."""
    schema = inspect(sync_connection)
    return {
        name: TableShape(
            primary=tuple(schema.get_pk_constraint(name)["constrained_columns"]),
            unique=tuple(
                [tuple(u["column_names"]) for u in schema.get_unique_constraints(name)]
                + [tuple(i["column_names"]) for i in schema.get_indexes(name) if i["unique"]]  # type: ignore[arg-type]
            ),
            foreign=tuple(
                ForeignKey(
                    tuple(f["constrained_columns"]),
                    f["referred_table"],
                    tuple(f["referred_columns"]),
                )
                for f in schema.get_foreign_keys(name)
            ),
        )
        for name in schema.get_table_names()
    }


TRACING = Path(__file__).resolve().parent / "tracing"


class StatementLog:
    """The statements of every subprocess the tests start with `traced()` environments
    (tests/tracing/sitecustomize.py appends them to one file). `unread()` hands out each
    statement once."""

    def __init__(self) -> None:
        descriptor, name = tempfile.mkstemp(prefix="supportdesk-statements-", suffix=".jsonl")
        os.close(descriptor)
        self.path = Path(name)
        self._read_up_to = 0
        atexit.register(self.path.unlink, missing_ok=True)

    def traced(self, env: dict[str, str]) -> dict[str, str]:
        """`env` for a subprocess whose statements this log collects."""
        paths = [str(TRACING), *filter(None, [env.get("PYTHONPATH")])]
        return {
            **env,
            "PYTHONPATH": os.pathsep.join(paths),
            "SUPPORTDESK_TEST_STATEMENT_LOG": str(self.path),
        }

    def _whole_lines(self) -> bytes:
        with self.path.open("rb") as log:
            log.seek(self._read_up_to)
            text = log.read()
        return text[: text.rfind(b"\n") + 1]

    def peek(self) -> list[str]:
        """Statements written since the last `unread()`, left for it."""
        return [json.loads(line) for line in self._whole_lines().splitlines()]

    def unread(self) -> list[str]:
        """Statements written since the last call (whole lines only)."""
        whole = self._whole_lines()
        self._read_up_to += len(whole)
        return [json.loads(line) for line in whole.splitlines()]


SUBPROCESS_STATEMENTS = StatementLog()
