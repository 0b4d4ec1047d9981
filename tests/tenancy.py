"""Checks that every statement touching a tenant table is confined to one workspace.

A statement is confined when the tenant table is read or changed under a condition on
`workspace_id` (or, for INSERT, writes the column). The few statements that must look
across workspaces by design are listed with their reason.
"""

from __future__ import annotations

import atexit
import json
import os
import re
import tempfile
from pathlib import Path

from supportdesk.db.tables import metadata

TENANT_TABLES = frozenset(
    name for name, table in metadata.tables.items() if "workspace_id" in table.columns
)

# Statements allowed to look across workspaces, each with why.
CROSS_WORKSPACE = {
    # Authentication: a key is found by its hash before anyone knows its workspace.
    "api_keys.secret_hash =": "bearer key lookup",
    # The operator's CLI revokes a key by id alone (CONTRACT section 10: `keys revoke KEY_ID`).
    "SELECT api_keys.workspace_id": "CLI revoke finds the key's workspace",
    # Org admins log in with an e-mail that may belong to several workspaces.
    "org_admins.email_normalized =": "settings page login",
    # SQLite's FTS5 index is one table for all workspaces: its integer row ids (assigned by
    # the article writers, under SQLite's single write lock) must be unique across them.
    "max(articles.search_rowid)": "numbering rows of the SQLite full-text index",
}

_TABLE_USE = re.compile(r"\b(?:FROM|JOIN|UPDATE|INTO)\s+\"?(\w+)\"?", re.IGNORECASE)


def tenant_tables_in(statement: str) -> set[str]:
    return {name for name in _TABLE_USE.findall(statement) if name in TENANT_TABLES}


def is_confined(statement: str) -> bool:
    """Whether a statement on tenant tables filters (or writes) workspace_id."""
    tables = tenant_tables_in(statement)
    if not tables:
        return True
    if any(marker in statement for marker in CROSS_WORKSPACE):
        return True
    text = " ".join(statement.split())
    head = text.split(" ", 1)[0].upper()
    if head == "INSERT":
        return "workspace_id" in text.split("VALUES", 1)[0] or "workspace_id" in text
    _, _, condition = text.partition(" WHERE ")
    return "workspace_id" in condition


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

    def unread(self) -> list[str]:
        """Statements written since the last call (whole lines only)."""
        with self.path.open("rb") as log:
            log.seek(self._read_up_to)
            text = log.read()
        whole = text[: text.rfind(b"\n") + 1]
        self._read_up_to += len(whole)
        return [json.loads(line) for line in whole.splitlines()]


SUBPROCESS_STATEMENTS = StatementLog()
