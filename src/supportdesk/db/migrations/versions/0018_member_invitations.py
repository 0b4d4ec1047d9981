"""member_invitations: one-time links that let a member choose their password

Revision ID: 0018
Revises: 0017
"""

import sqlalchemy as sa
from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None

ID = sa.String(length=40)


def _moment(name: str, *, nullable: bool = False) -> sa.Column[object]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def upgrade() -> None:
    op.create_table(
        "member_invitations",
        sa.Column("workspace_id", ID, nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("member_id", ID, nullable=False),
        _moment("created_at"),
        _moment("expires_at"),
        _moment("used_at", nullable=True),
        sa.ForeignKeyConstraint(
            ["workspace_id"],
            ["workspaces.id"],
            name=op.f("fk_member_invitations_workspace_id_workspaces"),
        ),
        sa.ForeignKeyConstraint(
            ["workspace_id", "member_id"],
            ["org_admins.workspace_id", "org_admins.id"],
            name=op.f("fk_member_invitations_workspace_id_member_id_org_admins"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("workspace_id", "token_hash", name=op.f("pk_member_invitations")),
    )
    op.create_index(
        "ix_member_invitations_member", "member_invitations", ["workspace_id", "member_id"]
    )


def downgrade() -> None:
    op.drop_index("ix_member_invitations_member", table_name="member_invitations")
    op.drop_table("member_invitations")
