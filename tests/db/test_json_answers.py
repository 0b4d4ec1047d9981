"""The pieces of a compiled answer agree with the executor's Python on both backends: a
cursor signed in SQL is the cursor `Cursors` signs and reads back, and an instant is
written as the API writes it."""

from __future__ import annotations

import json
import secrets
from dataclasses import replace
from datetime import UTC, datetime

from sqlalchemy import bindparam, literal, select

from supportdesk.auth.authenticate import key_still_active
from supportdesk.db.answer_shapes import Column, Fact, Facts, Given, Items, One, Paged, Row
from supportdesk.db.answer_sql import one_statement
from supportdesk.db.answers import as_text, json_boolean, json_object, rfc3339, signed_cursor
from supportdesk.db.types import UTCDateTime
from supportdesk.domain.clock import rfc3339 as python_rfc3339
from supportdesk.domain.pagination import Cursors
from tests.conftest import WorkspaceFixture
from tests.graphql.issues.helpers import new_issue, reply

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


def _thread_document(first: int) -> tuple[One, Given]:
    """`issue(id) { id messages(first) { edges { cursor node { id } } pageInfo {
    hasNextPage endCursor } } }` as a plan shapes it."""
    node = Row("messages", (("id", Column("id")),))
    messages = Paged(
        "messages",
        "messages",
        2,
        (
            ("edges", Items((("cursor", Fact.CURSOR), ("node", node)))),
            ("pageInfo", Facts((("hasNextPage", Fact.HAS_NEXT), ("endCursor", Fact.END_CURSOR)))),
        ),
    )
    root = One(Row("issues", (("id", Column("id")), ("messages", messages))), "id", "a0_id")
    return root, Given(frozenset({(2, "first")}))


def test_a_page_keeps_its_order_and_is_not_sorted_again(workspace: WorkspaceFixture) -> None:
    """The rows of a page are numbered and listed in the order they are read in: the
    statement sorts nothing after the numbering (a Sort of the page, bodies and all, cost
    PostgreSQL a fifth of the statement), and the list still comes in id order."""
    api = workspace.client()
    issue = new_issue(api)
    for n in range(30):
        reply(api, issue["id"], f"reply {n}")
    db = workspace.server.db
    root, given = _thread_document(first=25)
    compiled = db.compile(one_statement(root, given, key_still_active()))
    parameters = {
        "workspace_id": workspace.id,
        "a0_id": issue["id"],
        "a2_first": 25,
        "a2_limit": 26,
        "key_id": workspace.made.key.api_key.id,
        "key_checked_at": datetime.now(UTC),
        **Cursors(secrets.token_bytes(32), workspace.id).signing_parameters(),
    }
    [(answer,)] = workspace.server.call(db.fetch_compiled(compiled, **parameters))
    page = json.loads(answer)["messages"]
    ids = [edge["node"]["id"] for edge in page["edges"]]
    assert len(ids) == 25 and ids == sorted(ids)
    assert page["pageInfo"] == {"hasNextPage": True, "endCursor": page["edges"][-1]["cursor"]}

    explain = "EXPLAIN (COSTS OFF) " if db.dialect == "postgresql" else "EXPLAIN QUERY PLAN "
    plan = replace(compiled, sql=explain + compiled.sql, results=())
    lines = [str(row[-1]) for row in workspace.server.call(db.fetch_compiled(plan, **parameters))]
    sorts = [line for line in lines if "Sort" in line or "B-TREE" in line]
    # PostgreSQL reads the thread in id order from its index; SQLite's index holds no id,
    # so it sorts the thread's rows once to take the page (a bounded sort), and no more.
    assert len(sorts) == (0 if db.dialect == "postgresql" else 1), lines
