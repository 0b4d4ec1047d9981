"""The pieces of a compiled answer agree with the executor's Python on both backends: a
cursor signed in SQL is the cursor `Cursors` signs and reads back, and an instant is
written as the API writes it."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime

from sqlalchemy import bindparam, literal, select

from supportdesk.db.answers import as_text, json_boolean, json_object, rfc3339, signed_cursor
from supportdesk.db.types import UTCDateTime
from supportdesk.domain.clock import rfc3339 as python_rfc3339
from supportdesk.domain.pagination import Cursors
from tests.conftest import WorkspaceFixture

POSITIONS = ["iss_01JABCDEF", "ua:1763900000123000:iss_x", "é/ü+?" * 10, "x"]


def test_a_cursor_signed_by_the_database_is_the_cursor_python_signs(
    workspace: WorkspaceFixture,
) -> None:
    db = workspace.server.db
    for key in (secrets.token_bytes(32), secrets.token_bytes(100)):  # a key past one block
        cursors = Cursors(key, workspace.id)
        statement = select(signed_cursor(bindparam("position")))
        compiled = db.compile(statement)
        for position in POSITIONS:
            rows = workspace.server.call(
                db.fetch_compiled(compiled, position=position, **cursors.signing_parameters())
            )
            assert rows[0][0] == cursors.encode(position)
            assert cursors.decode(rows[0][0]) == position


def test_instants_and_booleans_are_written_as_the_api_writes_them(
    workspace: WorkspaceFixture,
) -> None:
    db = workspace.server.db
    moments = [
        datetime(2026, 11, 24, 9, 5, 7, 123000, tzinfo=UTC),
        datetime(2026, 1, 2, 3, 4, 5, 0, tzinfo=UTC),
        datetime(1999, 12, 31, 23, 59, 59, 999000, tzinfo=UTC),
    ]
    statement = select(
        as_text(
            json_object(
                [
                    ("at", rfc3339(bindparam("at", type_=UTCDateTime()))),
                    ("yes", json_boolean(literal(1) == 1)),
                    ("no", json_boolean(literal(1) == 2)),
                ]
            )
        )
    )
    compiled = db.compile(statement)
    for moment in moments:
        rows = workspace.server.call(db.fetch_compiled(compiled, at=moment))
        text = rows[0][0].replace(" ", "")
        assert text == f'{{"at":"{python_rfc3339(moment)}","yes":true,"no":false}}'
