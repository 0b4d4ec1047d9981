"""articles, with full-text search per backend

SQLite: an external-content FTS5 table (porter stemming) numbered by articles.search_rowid,
kept in step by the domain's writers in their own transactions (domain/articles/search.py).
PostgreSQL: a generated tsvector column (english configuration; title weighted A, body B)
with a GIN index; the database computes it in the statement that writes the row.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-23 09:00:00.000000
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

SQLITE_SEARCH = (
    "CREATE UNIQUE INDEX ix_articles_search_rowid ON articles (search_rowid)",
    "CREATE VIRTUAL TABLE articles_fts USING fts5("
    "title, body, content='articles', content_rowid='search_rowid', "
    "tokenize='porter unicode61 remove_diacritics 2')",
)
POSTGRESQL_SEARCH = (
    "ALTER TABLE articles ADD COLUMN search_vector tsvector GENERATED ALWAYS AS ("
    "setweight(to_tsvector('english'::regconfig, title), 'A') || "
    "setweight(to_tsvector('english'::regconfig, body), 'B')) STORED",
    "CREATE INDEX ix_articles_search_vector ON articles USING gin (search_vector)",
)


def upgrade() -> None:
    op.create_table(
        "articles",
        sa.Column("workspace_id", sa.String(length=40), nullable=False),
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("title", sa.String(length=255), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("published_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("search_rowid", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["workspace_id"], ["workspaces.id"], name=op.f("fk_articles_workspace_id_workspaces")
        ),
        sa.PrimaryKeyConstraint("workspace_id", "id", name=op.f("pk_articles")),
    )
    with op.batch_alter_table("articles", schema=None) as batch_op:
        batch_op.create_index("ix_articles_status", ["workspace_id", "status", "id"], unique=False)
    search = {"sqlite": SQLITE_SEARCH, "postgresql": POSTGRESQL_SEARCH}
    for statement in search[op.get_bind().dialect.name]:
        op.execute(statement)


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        op.execute("DROP TABLE articles_fts")
    with op.batch_alter_table("articles", schema=None) as batch_op:
        batch_op.drop_index("ix_articles_status")
    op.drop_table("articles")
