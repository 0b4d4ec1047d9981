"""Loaded at start-up by every Python process the tests launch with this folder on PYTHONPATH
(`supportdesk serve`, its workers, the CLI): when SUPPORTDESK_TEST_STATEMENT_LOG names a
file, each SQL statement the process runs (through a SQLAlchemy engine, as migrations do,
or through a `Database`) is appended to it, one JSON string a line, for the tenancy check
(tests/tenancy.py). Parameters are never written."""

from __future__ import annotations

import json
import os

_PATH = os.environ.get("SUPPORTDESK_TEST_STATEMENT_LOG")

if _PATH:
    from typing import Any

    from sqlalchemy import event
    from sqlalchemy.engine import Engine

    # O_APPEND: each line lands whole at the end, whichever process writes it.
    _FD = os.open(_PATH, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)

    def _write(statement: str) -> None:
        os.write(_FD, (json.dumps(statement) + "\n").encode())

    @event.listens_for(Engine, "before_cursor_execute")
    def _log_statement(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        _write(statement)

    try:
        from supportdesk.db.database import Database
    except ImportError:  # a process that is not the service's
        pass
    else:
        _made = Database.__init__

        def _observed(self: Database, *args: Any, **kwargs: Any) -> None:
            _made(self, *args, **kwargs)
            self.watch_statements(_write)

        Database.__init__ = _observed  # type: ignore[method-assign]
