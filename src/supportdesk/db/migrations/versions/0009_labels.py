"""labels and issue_labels (docs/working-issues.md)

Revision ID: 0009
Revises: 0008
"""

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

ID = sa.String(length=40)


def _moment(name: str) -> sa.Column[object]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=False)


def upgrade() -> None:
    op.create_table(
        "labels",
        sa.Column("workspace_id", ID, nullable=False),
        sa.Column("id", ID, nullable=False),
        sa.Column("name", sa.String(length=50), nullable=False),
        sa.Column("name_normalized", sa.String(length=150), nullable=False),
        sa.Column("color", sa.String(length=7), nullable=False),
        sa.Column("description", sa.String(length=500), nullable=False, server_default=""),
        _moment("created_at"),
        _moment("updated_at"),
        sa.ForeignKeyConstraint(
            ["workspace_id"], ["workspaces.id"], name=op.f("fk_labels_workspace_id_workspaces")
        ),
        sa.PrimaryKeyConstraint("workspace_id", "id", name=op.f("pk_labels")),
        sa.UniqueConstraint(
            "workspace_id", "name_normalized", name=op.f("uq_labels_workspace_id_name_normalized")
        ),
    )
    op.create_table(
        "issue_labels",
        sa.Column("workspace_id", ID, nullable=False),
        sa.Column("issue_id", ID, nullable=False),
        sa.Column("label_id", ID, nullable=False),
        _moment("added_at"),
        sa.ForeignKeyConstraint(
            ["workspace_id"],
            ["workspaces.id"],
            name=op.f("fk_issue_labels_workspace_id_workspaces"),
        ),
        sa.ForeignKeyConstraint(
            ["workspace_id", "issue_id"],
            ["issues.workspace_id", "issues.id"],
            name=op.f("fk_issue_labels_workspace_id_issue_id_issues"),
        ),
        sa.ForeignKeyConstraint(
            ["workspace_id", "label_id"],
            ["labels.workspace_id", "labels.id"],
            name=op.f("fk_issue_labels_workspace_id_label_id_labels"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint(
            "workspace_id", "issue_id", "label_id", name=op.f("pk_issue_labels")
        ),
    )
    op.create_index(
        "ix_issue_labels_label", "issue_labels", ["workspace_id", "label_id", "issue_id"]
    )


def downgrade() -> None:
    op.drop_index("ix_issue_labels_label", table_name="issue_labels")
    op.drop_table("issue_labels")
    op.drop_table("labels")
