"""issues: full-text search over the subject and every message (docs/working-issues.md)

SQLite: an FTS5 table `issues_fts` (subject, body: the thread's bodies one after another;
porter stemming) keeping its own copy of the texts, its rows numbered by
issues.search_rowid. PostgreSQL: an ordinary tsvector column issues.search_vector (english;
the subject weighted A, the bodies B), stored uncompressed (db/search_threads.py reads its
size), with a GIN index built once the column is filled. The writers keep both in step
(domain/issues/search.py); here every existing issue is indexed, a batch at a time.

Revision ID: 0013
Revises: 0012
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.engine import Connection

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None

# Issues indexed per statement: each batch reads their whole threads.
BATCH = 500
# PostgreSQL: a tsvector holds at most 1 MB of lexemes and positions, which text of up to
# this many characters cannot pass (a few bytes per character at worst). A longer thread
# is indexed message by message while the vector has room, as the writers do.
WHOLE_THREAD_CHARACTERS = 200_000
# Marks the statements over every workspace's issues (the tenancy tests let only marked
# statements through), as migration 0012 does.
EVERY_WORKSPACE = "/* migration: every workspace */ "

SQLITE_SEARCH = (
    # The table's own row ids are unique integers: the first numbering.
    EVERY_WORKSPACE + "UPDATE issues SET search_rowid = rowid",
    "CREATE UNIQUE INDEX ix_issues_search_rowid ON issues (search_rowid)",
    "CREATE VIRTUAL TABLE issues_fts USING fts5("
    "subject, body, tokenize='porter unicode61 remove_diacritics 2')",
)
SQLITE_BATCH = sa.text(
    EVERY_WORKSPACE + "INSERT INTO issues_fts (rowid, subject, body) "
    "SELECT issues.search_rowid, issues.subject, coalesce(("
    "SELECT group_concat(messages.body, char(10)) FROM messages "
    "WHERE messages.workspace_id = issues.workspace_id AND messages.issue_id = issues.id"
    "), '') FROM issues WHERE issues.search_rowid > :low AND issues.search_rowid <= :high"
)

POSTGRESQL_COLUMN = (
    "ALTER TABLE issues ADD COLUMN search_vector tsvector",
    "ALTER TABLE issues ALTER COLUMN search_vector SET STORAGE EXTERNAL",
)
POSTGRESQL_INDEX = "CREATE INDEX ix_issues_search_vector ON issues USING gin (search_vector)"
# The last issue of the next batch, in key order, after (:workspace_id, :id).
POSTGRESQL_BATCH_END = sa.text(
    EVERY_WORKSPACE + "SELECT issues.workspace_id, issues.id FROM issues "
    "WHERE (issues.workspace_id, issues.id) > (:workspace_id, :id) "
    "ORDER BY issues.workspace_id, issues.id OFFSET :skip LIMIT 1"
)
_THREAD = (
    "(SELECT string_agg(messages.body, E'\\n' ORDER BY messages.id) FROM messages "
    "WHERE messages.workspace_id = issues.workspace_id AND messages.issue_id = issues.id)"
)
_VECTOR = (
    "setweight(to_tsvector('english'::regconfig, issues.subject), 'A') || "
    "setweight(to_tsvector('english'::regconfig, coalesce(thread.body, '')), 'B')"
)


def _postgresql_batch(last: bool) -> sa.TextClause:
    """Indexes the issues after (:low_workspace, :low_id), up to and including
    (:high_workspace, :high_id) or, for the `last` batch, to the end of the table; those
    whose thread is too long to index in one piece are left for later."""
    high = "" if last else " AND (issues.workspace_id, issues.id) <= (:high_workspace, :high_id)"
    return sa.text(
        f"{EVERY_WORKSPACE}UPDATE issues SET search_vector = {_VECTOR} "
        f"FROM (SELECT issues.workspace_id, issues.id, {_THREAD} AS body FROM issues "
        f"WHERE (issues.workspace_id, issues.id) > (:low_workspace, :low_id){high}) AS thread "
        "WHERE issues.workspace_id = thread.workspace_id AND issues.id = thread.id "
        "AND coalesce(length(thread.body), 0) <= :most"
    )


POSTGRESQL_BATCH = {last: _postgresql_batch(last) for last in (False, True)}
POSTGRESQL_LONG_THREADS = sa.text(
    EVERY_WORKSPACE
    + "SELECT issues.workspace_id, issues.id FROM issues WHERE issues.search_vector IS NULL"
)
POSTGRESQL_SUBJECT = sa.text(
    "UPDATE issues SET search_vector = "
    "setweight(to_tsvector('english'::regconfig, issues.subject), 'A') "
    "WHERE issues.workspace_id = :workspace_id AND issues.id = :id"
)
POSTGRESQL_MESSAGE_IDS = sa.text(
    "SELECT messages.id FROM messages WHERE messages.workspace_id = :workspace_id "
    "AND messages.issue_id = :id ORDER BY messages.id"
)
# A message added to a vector while it stays under 1,000,000 bytes (VECTOR_ROOM).
POSTGRESQL_APPEND = sa.text(
    "UPDATE issues SET search_vector = CASE "
    "WHEN pg_column_size(issues.search_vector) + pg_column_size(addition.added) < 1000000 "
    "THEN issues.search_vector || addition.added ELSE issues.search_vector END "
    "FROM (SELECT setweight(to_tsvector('english'::regconfig, messages.body), 'B') AS added "
    "FROM messages WHERE messages.workspace_id = :workspace_id AND messages.id = :message_id"
    ") AS addition WHERE issues.workspace_id = :workspace_id AND issues.id = :id"
)


def upgrade() -> None:
    with op.batch_alter_table("issues") as batch:
        batch.add_column(sa.Column("search_rowid", sa.Integer(), nullable=True))
    bind = op.get_bind()
    if bind.dialect.name == "sqlite":
        _index_on_sqlite(bind)
    else:
        _index_on_postgresql(bind)


def _index_on_sqlite(bind: Connection) -> None:
    for statement in SQLITE_SEARCH:
        op.execute(statement)
    last = (
        bind.scalar(sa.text(EVERY_WORKSPACE + "SELECT coalesce(max(search_rowid), 0) FROM issues"))
        or 0
    )
    for low in range(0, last, BATCH):
        bind.execute(SQLITE_BATCH, {"low": low, "high": low + BATCH})


def _index_on_postgresql(bind: Connection) -> None:
    for statement in POSTGRESQL_COLUMN:
        op.execute(statement)
    low = ("", "")  # before every key
    while True:
        end = bind.execute(
            POSTGRESQL_BATCH_END, {"workspace_id": low[0], "id": low[1], "skip": BATCH - 1}
        ).first()
        bounds = {"low_workspace": low[0], "low_id": low[1], "most": WHOLE_THREAD_CHARACTERS}
        if end is None:
            bind.execute(POSTGRESQL_BATCH[True], bounds)
            break
        bind.execute(
            POSTGRESQL_BATCH[False], {**bounds, "high_workspace": end[0], "high_id": end[1]}
        )
        low = (end[0], end[1])
    for workspace_id, issue_id in bind.execute(POSTGRESQL_LONG_THREADS).all():
        _index_message_by_message(bind, {"workspace_id": workspace_id, "id": issue_id})
    op.execute(POSTGRESQL_INDEX)


def _index_message_by_message(bind: Connection, issue: dict[str, str]) -> None:
    bind.execute(POSTGRESQL_SUBJECT, issue)
    for (message_id,) in bind.execute(POSTGRESQL_MESSAGE_IDS, issue).all():
        bind.execute(POSTGRESQL_APPEND, {**issue, "message_id": message_id})


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        op.execute("DROP TABLE issues_fts")
        op.execute("DROP INDEX ix_issues_search_rowid")
    else:
        op.execute("DROP INDEX ix_issues_search_vector")
        op.execute("ALTER TABLE issues DROP COLUMN search_vector")
    with op.batch_alter_table("issues") as batch:
        batch.drop_column("search_rowid")
