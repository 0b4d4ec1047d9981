"""messages.visibility: every message so far is public (docs/working-issues.md)

Revision ID: 0010
Revises: 0009
"""

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("messages") as batch:
        batch.add_column(
            sa.Column("visibility", sa.String(length=20), nullable=False, server_default="public")
        )


def downgrade() -> None:
    with op.batch_alter_table("messages") as batch:
        batch.drop_column("visibility")
