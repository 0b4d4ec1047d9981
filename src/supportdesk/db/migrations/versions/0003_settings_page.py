"""settings page: login throttle, one-time form tokens, service secrets

Revision ID: 0003
Revises: 0002
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "login_failures",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("subject", sa.String(length=64), nullable=False),
        sa.Column("failed_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_login_failures")),
    )
    op.create_index("ix_login_failures_subject", "login_failures", ["subject", "failed_at"])
    op.create_table(
        "form_submissions",
        sa.Column("workspace_id", sa.String(length=40), nullable=False),
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["workspace_id"],
            ["workspaces.id"],
            name=op.f("fk_form_submissions_workspace_id_workspaces"),
        ),
        sa.PrimaryKeyConstraint("workspace_id", "id", name=op.f("pk_form_submissions")),
    )
    op.create_table(
        "service_secrets",
        sa.Column("name", sa.String(length=50), nullable=False),
        sa.Column("value", sa.String(length=200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_service_secrets")),
    )


def downgrade() -> None:
    op.drop_table("service_secrets")
    op.drop_table("form_submissions")
    op.drop_index("ix_login_failures_subject", table_name="login_failures")
    op.drop_table("login_failures")
