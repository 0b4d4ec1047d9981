"""org_admin_sessions: settings-page logins kept on the server, so that ending one holds at once

Revision ID: 0007
Revises: 0006
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "org_admin_sessions",
        sa.Column("workspace_id", sa.String(length=40), nullable=False),
        sa.Column("session_hash", sa.String(length=64), nullable=False),
        sa.Column("admin_id", sa.String(length=40), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["workspace_id"],
            ["workspaces.id"],
            name=op.f("fk_org_admin_sessions_workspace_id_workspaces"),
        ),
        sa.ForeignKeyConstraint(
            ["workspace_id", "admin_id"],
            ["org_admins.workspace_id", "org_admins.id"],
            name=op.f("fk_org_admin_sessions_workspace_id_admin_id_org_admins"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("workspace_id", "session_hash", name=op.f("pk_org_admin_sessions")),
    )
    op.create_index(
        "ix_org_admin_sessions_admin", "org_admin_sessions", ["workspace_id", "admin_id"]
    )


def downgrade() -> None:
    op.drop_index("ix_org_admin_sessions_admin", table_name="org_admin_sessions")
    op.drop_table("org_admin_sessions")
