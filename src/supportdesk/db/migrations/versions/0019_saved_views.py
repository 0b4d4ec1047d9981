"""saved_views: queue filters kept under a name, a member's own or shared (docs/inbox.md)

Revision ID: 0019
Revises: 0017
"""

import sqlalchemy as sa
from alembic import op

revision = "0019"
down_revision = "0017"
branch_labels = None
depends_on = None

ID = sa.String(length=40)


def upgrade() -> None:
    op.create_table(
        "saved_views",
        sa.Column("workspace_id", ID, nullable=False),
        sa.Column("id", ID, nullable=False),
        sa.Column("owner_id", ID, nullable=True),
        sa.Column("name", sa.String(length=50), nullable=False),
        sa.Column("filter", sa.Text(), nullable=False),
        sa.Column("created_by", ID, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["workspace_id"], ["workspaces.id"], name=op.f("fk_saved_views_workspace_id_workspaces")
        ),
        sa.PrimaryKeyConstraint("workspace_id", "id", name=op.f("pk_saved_views")),
    )
    op.create_index("ix_saved_views_owner", "saved_views", ["workspace_id", "owner_id"])


def downgrade() -> None:
    op.drop_index("ix_saved_views_owner", table_name="saved_views")
    op.drop_table("saved_views")
