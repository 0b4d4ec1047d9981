"""issue_presence: who is on an issue's page in the inbox, viewing or replying
(docs/inbox-live.md)

Revision ID: 0020
Revises: 0019
"""

import sqlalchemy as sa
from alembic import op

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None

ID = sa.String(length=40)


def upgrade() -> None:
    op.create_table(
        "issue_presence",
        sa.Column("workspace_id", ID, nullable=False),
        sa.Column("issue_id", ID, nullable=False),
        sa.Column("member_id", ID, nullable=False),
        sa.Column("state", sa.String(length=10), nullable=False),
        sa.Column("seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["workspace_id"],
            ["workspaces.id"],
            name=op.f("fk_issue_presence_workspace_id_workspaces"),
        ),
        sa.ForeignKeyConstraint(
            ["workspace_id", "issue_id"],
            ["issues.workspace_id", "issues.id"],
            name=op.f("fk_issue_presence_workspace_id_issue_id_issues"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["workspace_id", "member_id"],
            ["org_admins.workspace_id", "org_admins.id"],
            name=op.f("fk_issue_presence_workspace_id_member_id_org_admins"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint(
            "workspace_id", "issue_id", "member_id", name=op.f("pk_issue_presence")
        ),
    )


def downgrade() -> None:
    op.drop_table("issue_presence")
