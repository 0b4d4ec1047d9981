"""workspaces.webhook_generation: moved with every webhook endpoint change

A write reads the workspace's enabled endpoints in the statement that takes the workspace
row's lock (domain/events/log.py). The statement's snapshot may predate the lock; the
generation, read both from the snapshot and from the locked row, tells whether an endpoint
changed in between, and only then are the endpoints read again.

Revision ID: 0014
Revises: 0013
"""

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("workspaces") as batch:
        batch.add_column(
            sa.Column("webhook_generation", sa.Integer(), nullable=False, server_default="0")
        )


def downgrade() -> None:
    with op.batch_alter_table("workspaces") as batch:
        batch.drop_column("webhook_generation")
