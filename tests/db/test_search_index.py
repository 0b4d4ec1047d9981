"""A full-text index (db/search.py) over tables of the test's own, on SQLite and PostgreSQL:
one statement matches every word, stemmed, in any field, ranks by the fields' weights, runs
on the driver and in a transaction alike, and the index follows its writers' transactions.
Both ways of keeping an index are exercised: texts from the table's own columns (as for
articles) and texts handed over by the writer (a subject and a thread's messages)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from sqlalchemy import (
    Column,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    bindparam,
    select,
    text,
    update,
)
from sqlalchemy.ext.asyncio import create_async_engine

from supportdesk.db import Database, Read
from supportdesk.db.connection import Connection
from supportdesk.db.search import (
    SearchEntry,
    SearchField,
    SearchIndex,
    words_param,
    workspace_param,
)

metadata = MetaData()
notes = Table(
    "notes",
    metadata,
    Column("workspace_id", String(40), primary_key=True),
    Column("id", String(40), primary_key=True),
    Column("title", String(255), nullable=False),
    Column("body", Text, nullable=False),
    Column("search_rowid", Integer),
    Index("ix_notes_search_rowid", "search_rowid", unique=True),
)
threads = Table(
    "threads",
    metadata,
    Column("workspace_id", String(40), primary_key=True),
    Column("id", String(40), primary_key=True),
    Column("subject", String(255), nullable=False),
    Column("search_rowid", Integer),
    Index("ix_threads_search_rowid", "search_rowid", unique=True),
)
TOKENIZER = "tokenize='porter unicode61 remove_diacritics 2'"
INDEX_DDL = {
    "sqlite": [
        "CREATE VIRTUAL TABLE notes_fts USING fts5(title, body, workspace_id, "
        f"content='notes', content_rowid='search_rowid', {TOKENIZER})",
        f"CREATE VIRTUAL TABLE threads_fts USING fts5(subject, body, workspace_id, {TOKENIZER})",
    ],
    "postgresql": [
        "ALTER TABLE notes ADD COLUMN search_vector tsvector GENERATED ALWAYS AS ("
        "setweight(to_tsvector('english'::regconfig, title), 'A') || "
        "setweight(to_tsvector('english'::regconfig, body), 'B')) STORED",
        "CREATE INDEX ix_notes_search ON notes USING gin (search_vector)",
        "ALTER TABLE threads ADD COLUMN search_vector tsvector",
        # Uncompressed, so that a vector's stored size is its true size (db/search_threads.py).
        "ALTER TABLE threads ALTER COLUMN search_vector SET STORAGE EXTERNAL",
        "CREATE INDEX ix_threads_search ON threads USING gin (search_vector)",
    ],
}
FIELDS = (SearchField("title", "A", boost=10.0), SearchField("body", "B"))
NOTES = SearchIndex(
    notes, (notes.c.workspace_id, notes.c.id), notes.c.search_rowid, FIELDS,
    "notes_fts", "search_vector",
)  # fmt: skip
THREADS = SearchIndex(
    threads, (threads.c.workspace_id, threads.c.id), threads.c.search_rowid,
    (SearchField("subject", "A", boost=10.0), SearchField("body", "B")),
    "threads_fts", "search_vector", from_columns=False,
)  # fmt: skip
WS = "ws_1"

# (id, title, body), for "reset password": both words in the title first, then the body
# with three matches, then the body with two; the others lack a word.
NOTES_ROWS = [
    ("n_body2", "Billing", "To reset your password, contact billing."),
    ("n_title", "Reset password", "Open the settings."),
    ("n_half", "Password", "Nothing else here."),
    ("n_body3", "Settings", "To reset your password, open settings. Password rules apply."),
    ("n_none", "Printers", "Toner and paper."),
]


def run(url: str, scenario: Callable[[Database], Awaitable[Any]]) -> Any:
    async def whole() -> Any:
        engine = create_async_engine(url)
        async with engine.begin() as ddl:
            await ddl.run_sync(metadata.create_all)
        await engine.dispose()
        db = Database(url)
        try:
            async with db.transaction() as connection:
                for statement in INDEX_DDL[connection.dialect.name]:
                    await connection.execute(text(statement))
            return await scenario(db)
        finally:
            await db.dispose()

    return asyncio.run(whole())


async def add_notes(db: Database, rows: list[tuple[str, str, str]]) -> None:
    async with db.transaction() as connection:
        rowids = await NOTES.next_rowids(connection, len(rows))
        await connection.execute(
            notes.insert(),
            [
                {"workspace_id": WS, "id": i, "title": t, "body": b, "search_rowid": r}
                for (i, t, b), r in zip(rows, rowids, strict=True)
            ],
        )
        await NOTES.add(
            connection,
            [SearchEntry(r, (WS, i), (t, b)) for (i, t, b), r in zip(rows, rowids, strict=True)],
        )


async def found(db: Database, index: SearchIndex, words: list[str]) -> list[str]:
    """Ids of the rows matching every word, most relevant first, then by id."""
    hit = index.search(WS, words)
    statement = (
        select(index.table.c.id, hit.score.label("score"))
        .select_from(hit.source)
        .where(index.table.c.workspace_id == WS, hit.condition)
        .order_by(hit.score.desc(), index.table.c.id)
    )
    async with db.read() as connection:
        return [row.id for row in await connection.execute(statement)]


def test_every_word_must_match_stemmed_in_any_field_ranked_by_weight(
    empty_database: str,
) -> None:
    async def scenario(db: Database) -> dict[str, list[str]]:
        await add_notes(db, NOTES_ROWS)
        queries = {
            "reset password": ["reset", "password"],
            "resetting passwords": ["resetting", "passwords"],
            "printer toner": ["printer", "toner"],
            "password billing": ["password", "billing"],
            "password printer": ["password", "printer"],
        }
        return {name: await found(db, NOTES, words) for name, words in queries.items()}

    answers = run(empty_database, scenario)

    assert answers["reset password"] == ["n_title", "n_body3", "n_body2"]
    assert answers["resetting passwords"] == answers["reset password"]
    assert answers["printer toner"] == ["n_none"]
    assert answers["password billing"] == ["n_body2"]
    assert answers["password printer"] == []


def test_a_word_is_never_an_operator(empty_database: str) -> None:
    async def scenario(db: Database) -> list[list[str]]:
        await add_notes(db, [("n_ops", "Printer or scanner", 'Quotes " and stars * NEAR(x)')])
        return [
            await found(db, NOTES, words)
            for words in (["near", "x"], ['printer"'], ["print*"], ["printer", "or", "nothing"])
        ]

    near, quoted, prefix, either = run(empty_database, scenario)

    assert near == quoted == ["n_ops"]
    assert prefix == either == []


async def add_then_fail(db: Database, answers: dict[str, list[str]]) -> None:
    """Writes a note and its entry, sees it found inside, then fails the transaction."""
    async with db.transaction() as connection:
        [rowid] = await NOTES.next_rowids(connection, 1)
        row = {"workspace_id": WS, "id": "n_1", "title": "Quasar", "body": "Far"}
        await connection.execute(notes.insert(), {**row, "search_rowid": rowid})
        await NOTES.add(connection, [SearchEntry(rowid, (WS, "n_1"), ("Quasar", "Far"))])
        hit = NOTES.search(WS, ["quasar"])
        inside = select(notes.c.id).select_from(hit.source).where(hit.condition)
        answers["inside"] = list((await connection.execute(inside)).scalars())
        raise RuntimeError("roll back")


def test_the_index_follows_the_writers_transaction(empty_database: str) -> None:
    async def scenario(db: Database) -> dict[str, list[str]]:
        answers = {}
        with pytest.raises(RuntimeError, match="roll back"):
            await add_then_fail(db, answers)
        answers["rolled back"] = await found(db, NOTES, ["quasar"])
        await add_notes(db, [("n_1", "Quasar", "Far")])
        answers["committed"] = await found(db, NOTES, ["quasar"])
        async with db.transaction() as connection:
            [rowid] = (await connection.execute(select(notes.c.search_rowid))).scalars()
            await connection.execute(notes.update().values(title="Pulsar", body="Near"))
            before, after = ("Quasar", "Far"), ("Pulsar", "Near")
            await NOTES.replace(
                connection,
                [SearchEntry(rowid, (WS, "n_1"), before)],
                [SearchEntry(rowid, (WS, "n_1"), after)],
            )
        answers["old words"] = await found(db, NOTES, ["quasar"])
        answers["new words"] = await found(db, NOTES, ["pulsar", "near"])
        return answers

    answers = run(empty_database, scenario)

    assert answers["inside"] == ["n_1"]
    assert answers["rolled back"] == []
    assert answers["committed"] == ["n_1"]
    assert answers["old words"] == []
    assert answers["new words"] == ["n_1"]


_THREAD_HITS = THREADS.search(workspace_param("workspace"), words_param("words"))
THREADS_BY_WORDS = Read(
    select(threads.c.id)
    .select_from(_THREAD_HITS.source)
    .where(threads.c.workspace_id == WS, _THREAD_HITS.condition)
    .order_by(_THREAD_HITS.score.desc(), threads.c.id),
    lambda row: str(row[0]),
)


def test_texts_handed_over_by_the_writer_one_read_on_both_paths(empty_database: str) -> None:
    """A subject and a thread whose messages are indexed as one text: a word of the third
    message finds it, a later message too once the writer replaces the entry, and the
    read built once (words bound when it runs) answers the same on the driver and inside
    a transaction."""
    thread = ["Hello, my printer stopped.", "Did you restart it?", "Yes; the toner is empty."]

    async def scenario(db: Database) -> dict[str, Any]:
        answers: dict[str, Any] = {}
        async with db.transaction() as connection:
            rowids = await THREADS.next_rowids(connection, 2)
            rows = [("t_printer", "Printer broken", rowids[0]), ("t_mail", "Mail", rowids[1])]
            await connection.execute(
                threads.insert(),
                [
                    {"workspace_id": WS, "id": i, "subject": s, "search_rowid": r}
                    for i, s, r in rows
                ],
            )
            await THREADS.add(
                connection,
                [
                    SearchEntry(rowids[0], (WS, "t_printer"), ("Printer broken", " ".join(thread))),
                    SearchEntry(rowids[1], (WS, "t_mail"), ("Mail", "My printer prints mail.")),
                ],
            )
        answers["third message"] = await db.fetch(
            THREADS_BY_WORDS, workspace=WS, words=["toner", "printers"]
        )
        answers["subject first"] = await db.fetch(THREADS_BY_WORDS, workspace=WS, words=["printer"])
        async with db.transaction() as connection:
            answers["in a transaction"] = await connection.fetch(
                THREADS_BY_WORDS, workspace=WS, words=["printer"]
            )
            old = SearchEntry(rowids[0], (WS, "t_printer"), ("Printer broken", " ".join(thread)))
            new = SearchEntry(
                rowids[0], (WS, "t_printer"), ("Printer broken", " ".join([*thread, "Cartridge"]))
            )
            await THREADS.replace(connection, [old], [new])
        answers["later message"] = await db.fetch(
            THREADS_BY_WORDS, workspace=WS, words=["cartridges"]
        )
        async with db.transaction() as connection:
            await THREADS.remove(connection, [new])
        answers["removed"] = await db.fetch(THREADS_BY_WORDS, workspace=WS, words=["printer"])
        return answers

    answers = run(empty_database, scenario)

    assert answers["third message"] == ["t_printer"]
    assert answers["subject first"] == ["t_printer", "t_mail"]
    assert answers["in a transaction"] == answers["subject first"]
    assert answers["later message"] == ["t_printer"]
    assert answers["removed"] == ["t_mail"]


async def add_threads(db: Database, rows: list[tuple[str, str, str]]) -> None:
    """Threads (id, subject, first message) and their entries, in one transaction."""
    async with db.transaction() as connection:
        rowids = await THREADS.next_rowids(connection, len(rows))
        await connection.execute(
            threads.insert(),
            [
                {"workspace_id": WS, "id": i, "subject": s, "search_rowid": r}
                for (i, s, _), r in zip(rows, rowids, strict=True)
            ],
        )
        await THREADS.add(
            connection,
            [SearchEntry(r, (WS, i), (s, b)) for (i, s, b), r in zip(rows, rowids, strict=True)],
        )


# A writer's own UPDATE of the row that appends to its thread as it goes (a reply).
TOUCH_THREAD = THREADS.appending(
    "body",
    lambda table: (
        update(table)
        .where(table.c.workspace_id == bindparam("in_workspace"), table.c.id == bindparam("the_id"))
        .values(subject=table.c.subject)
        .returning(table.c.id)
    ),
)


async def _append_alone(connection: Connection, key: tuple[str, str], text: str) -> None:
    await THREADS.append(connection, "body", key, text)


async def _append_in_update(connection: Connection, key: tuple[str, str], text: str) -> None:
    parameters = {"in_workspace": key[0], "the_id": key[1]}
    assert await TOUCH_THREAD.run(connection, parameters, key, text) == [(key[1],)]


Appender = Callable[[Connection, tuple[str, str], str], Awaitable[None]]
APPEND = pytest.mark.parametrize("append", [_append_alone, _append_in_update])


@APPEND
def test_one_field_changes_alone_found_by_the_rows_key(
    empty_database: str, append: Appender
) -> None:
    """A message appended, a subject set anew and a thread moved onto another: each a
    change of one field of a row found by its key, the other field left as it was."""

    async def scenario(db: Database) -> dict[str, list[str]]:
        await add_threads(
            db,
            [
                ("t_printer", "Printer broken", "Hello, my printer stopped."),
                ("t_mail", "Mail bounces", "Mail to the boss bounces."),
            ],
        )
        found = {}
        async with db.transaction() as connection:
            await append(connection, (WS, "t_printer"), "Did you restart it?")
            await append(connection, (WS, "t_printer"), "The toner is empty.")
            found["appended, inside"] = await connection.fetch(
                THREADS_BY_WORDS, workspace=WS, words=["toner"]
            )
        found["appended"] = await db.fetch(
            THREADS_BY_WORDS, workspace=WS, words=["toner", "restart", "hello"]
        )
        async with db.transaction() as connection:
            await THREADS.set_text(connection, "subject", (WS, "t_printer"), "Scanner jammed")
        found["old subject"] = await db.fetch(THREADS_BY_WORDS, workspace=WS, words=["broken"])
        found["new subject"] = await db.fetch(
            THREADS_BY_WORDS, workspace=WS, words=["scanner", "toner"]
        )
        async with db.transaction() as connection:
            await THREADS.move(connection, "body", (WS, "t_mail"), (WS, "t_printer"))
        found["moved body"] = await db.fetch(
            THREADS_BY_WORDS, workspace=WS, words=["boss", "toner"]
        )
        found["source's subject"] = await db.fetch(
            THREADS_BY_WORDS, workspace=WS, words=["bounces"]
        )
        found["target's subject"] = await db.fetch(
            THREADS_BY_WORDS, workspace=WS, words=["scanner"]
        )
        return found

    found = run(empty_database, scenario)

    assert found["appended, inside"] == ["t_printer"]
    assert found["appended"] == ["t_printer"]
    assert found["old subject"] == []
    assert found["new subject"] == ["t_printer"]
    assert found["moved body"] == ["t_printer"]
    # "Mail bounces" is the source's subject still; its body went to the target.
    assert found["source's subject"] == ["t_mail", "t_printer"]
    assert found["target's subject"] == ["t_printer"]


def unique_words(start: int, count: int) -> str:
    return " ".join(f"w{number:07d}" for number in range(start, start + count))


@APPEND
def test_a_vector_grows_while_postgresql_has_room_for_it(
    empty_database: str, append: Appender
) -> None:
    """Each message of 8,000 words never seen before adds 96 KB of lexemes and positions
    to PostgreSQL's vector: twelve would pass the 1 MB a tsvector may hold (an error, were
    it not for the room). The writes still succeed; past the room the row keeps the words
    it has. SQLite's index has no such bound. The same whether a text is appended alone
    or by the writer's own UPDATE of the row."""
    words_per_message, messages = 8_000, 12

    async def scenario(db: Database) -> dict[str, list[str]]:
        await add_threads(db, [("t_long", "Logs", unique_words(0, words_per_message))])
        for number in range(1, messages):
            async with db.transaction() as connection:
                text = unique_words(number * words_per_message, words_per_message)
                await append(connection, (WS, "t_long"), text)
        first, last = unique_words(0, 1), unique_words((messages - 1) * words_per_message, 1)
        return {
            "first message": await db.fetch(THREADS_BY_WORDS, workspace=WS, words=[first]),
            "last message": await db.fetch(THREADS_BY_WORDS, workspace=WS, words=[last]),
        }

    found = run(empty_database, scenario)

    assert found["first message"] == ["t_long"]
    expected_last = ["t_long"] if empty_database.startswith("sqlite") else []
    assert found["last message"] == expected_last


def test_what_cannot_be_searched_is_refused_before_any_sql() -> None:
    with pytest.raises(ValueError, match="words"):
        NOTES.search(WS, [])
    with pytest.raises(ValueError, match="words"):
        NOTES.search(WS, "reset password")  # a string is not a list of words
    with pytest.raises(ValueError, match="identifiers"):
        SearchIndex(notes, (notes.c.id,), notes.c.search_rowid, FIELDS, "notes; --", "v")
    with pytest.raises(ValueError, match="weight"):
        SearchIndex(notes, (notes.c.id,), notes.c.search_rowid, (SearchField("t", "E"),), "f", "v")
    with pytest.raises(ValueError, match="weighs its own"):
        SearchIndex(
            notes, (notes.c.id,), notes.c.search_rowid, (SearchField("t", "A"), SearchField("b", "A")),
            "f", "v", from_columns=False,
        )  # fmt: skip
    with pytest.raises(ValueError, match="starts with workspace_id"):
        SearchIndex(notes, (notes.c.id,), notes.c.search_rowid, FIELDS, "f", "v")
