"""SQLite's full-text indexes: the workspace is part of the match

issues_fts and articles_fts hold every workspace's rows. A search asked FTS5 for its words,
then dropped the other workspaces' matches, so its time told how many those hold. Each
table gets a last column, workspace_id, holding the row's workspace as one token (the hex
digits of its id and a 0: db/search.py, `workspace_token`), which a search matches with
its words. issues_fts keeps its own copy of the texts, copied here into the new table;
articles_fts reads its texts from articles (external content) and indexes them again,
with the token in place of the id it would read from the table. PostgreSQL's indexes
are columns of the tables, searched with the workspace's condition: nothing changes there.

Revision ID: 0016
Revises: 0015
"""

from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None

TOKENIZER = "tokenize='porter unicode61 remove_diacritics 2'"
ARTICLES = "content='articles', content_rowid='search_rowid'"
# Marks the statements over every workspace's rows (the tenancy tests let only marked
# statements through), as migration 0012 does.
EVERY_WORKSPACE = "/* migration: every workspace */ "
WORKSPACE_WORD = "hex({table}.workspace_id) || '0'"

UPGRADE = (
    "ALTER TABLE issues_fts RENAME TO issues_fts_0013",
    f"CREATE VIRTUAL TABLE issues_fts USING fts5(subject, body, workspace_id, {TOKENIZER})",
    EVERY_WORKSPACE + "INSERT INTO issues_fts (rowid, subject, body, workspace_id) "
    f"SELECT old.rowid, old.subject, old.body, {WORKSPACE_WORD.format(table='issues')} "
    "FROM issues_fts_0013 AS old JOIN issues ON issues.search_rowid = old.rowid",
    "DROP TABLE issues_fts_0013",
    "DROP TABLE articles_fts",
    "CREATE VIRTUAL TABLE articles_fts USING fts5("
    f"title, body, workspace_id, {ARTICLES}, {TOKENIZER})",
    EVERY_WORKSPACE + "INSERT INTO articles_fts (rowid, title, body, workspace_id) "
    f"SELECT articles.search_rowid, articles.title, articles.body, "
    f"{WORKSPACE_WORD.format(table='articles')} FROM articles "
    "WHERE articles.search_rowid IS NOT NULL",
)
DOWNGRADE = (
    "ALTER TABLE issues_fts RENAME TO issues_fts_0016",
    f"CREATE VIRTUAL TABLE issues_fts USING fts5(subject, body, {TOKENIZER})",
    "INSERT INTO issues_fts (rowid, subject, body) "
    "SELECT old.rowid, old.subject, old.body FROM issues_fts_0016 AS old",
    "DROP TABLE issues_fts_0016",
    "DROP TABLE articles_fts",
    f"CREATE VIRTUAL TABLE articles_fts USING fts5(title, body, {ARTICLES}, {TOKENIZER})",
    EVERY_WORKSPACE + "INSERT INTO articles_fts (rowid, title, body) "
    "SELECT articles.search_rowid, articles.title, articles.body FROM articles "
    "WHERE articles.search_rowid IS NOT NULL",
)


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        for statement in UPGRADE:
            op.execute(statement)


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        for statement in DOWNGRADE:
            op.execute(statement)
