"""webhook_deliveries: no index on created_at

Every createIssue into a workspace with an endpoint inserts a delivery, and each index the
row is in costs that insert a b-tree page (on SQLite inside the single writer's lock).
Retention found old deliveries by `created_at`; it now finds them by id in each workspace
(ids sort by creation time, domain/ids.py), on the primary key, so that index goes.

Revision ID: 0015
Revises: 0014
"""

from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.drop_index("ix_webhook_deliveries_created_at", table_name="webhook_deliveries")


def downgrade() -> None:
    op.create_index("ix_webhook_deliveries_created_at", "webhook_deliveries", ["created_at"])
