"""webhook_deliveries: no index on created_at, and on SQLite a table without rowid

Every createIssue into a workspace with an endpoint inserts a delivery, and its outcome
updates it: each b-tree the row is in costs that write a page, and on SQLite a page written
inside the single writer's lock. Retention found old deliveries by `created_at`; it now
finds them by id in each workspace (ids sort by creation time, domain/ids.py), on the
primary key, so that index goes. On SQLite the table keeps its rows in the primary key's
b-tree (WITHOUT ROWID) instead of a rowid table beside a primary-key index.

Revision ID: 0015
Revises: 0014
"""

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None

PENDING = sa.text("status = 'pending'")


def _due_index() -> None:
    op.create_index(
        "ix_webhook_deliveries_due",
        "webhook_deliveries",
        ["next_attempt_at"],
        postgresql_where=PENDING,
        sqlite_where=PENDING,
    )


def upgrade() -> None:
    op.drop_index("ix_webhook_deliveries_created_at", table_name="webhook_deliveries")
    if op.get_bind().dialect.name == "sqlite":
        # The partial index is made again by hand: batch mode's copy may not keep its WHERE.
        op.drop_index("ix_webhook_deliveries_due", table_name="webhook_deliveries")
        with op.batch_alter_table(
            "webhook_deliveries", recreate="always", table_kwargs={"sqlite_with_rowid": False}
        ):
            pass
        _due_index()


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        op.drop_index("ix_webhook_deliveries_due", table_name="webhook_deliveries")
        with op.batch_alter_table(
            "webhook_deliveries", recreate="always", table_kwargs={"sqlite_with_rowid": True}
        ):
            pass
        _due_index()
    op.create_index("ix_webhook_deliveries_created_at", "webhook_deliveries", ["created_at"])
