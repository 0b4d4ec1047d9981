"""attachments: files of messages, their bytes in the object store (docs/attachments.md)

Revision ID: 0017
Revises: 0016
"""

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None

ID = sa.String(length=40)
UNATTACHED = sa.text("message_id IS NULL")


def _moment(name: str, *, nullable: bool = False) -> sa.Column[object]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def upgrade() -> None:
    op.create_table(
        "attachments",
        sa.Column("workspace_id", ID, nullable=False),
        sa.Column("id", ID, nullable=False),
        sa.Column("message_id", ID, nullable=True),
        sa.Column("file_name", sa.String(length=255), nullable=False),
        sa.Column("size_bytes", sa.Integer(), nullable=False),
        sa.Column("content_type", sa.String(length=255), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=True),
        sa.Column("storage_key", sa.String(length=200), nullable=True),
        _moment("created_at"),
        _moment("uploaded_at", nullable=True),
        _moment("expires_at"),
        sa.Column("uploader_key_id", ID, nullable=True),
        sa.ForeignKeyConstraint(
            ["workspace_id"], ["workspaces.id"], name=op.f("fk_attachments_workspace_id_workspaces")
        ),
        sa.ForeignKeyConstraint(
            ["workspace_id", "message_id"],
            ["messages.workspace_id", "messages.id"],
            name=op.f("fk_attachments_workspace_id_message_id_messages"),
        ),
        sa.PrimaryKeyConstraint("workspace_id", "id", name=op.f("pk_attachments")),
    )
    op.create_index("ix_attachments_message", "attachments", ["workspace_id", "message_id"])
    op.create_index("ix_attachments_sha256", "attachments", ["workspace_id", "sha256"])
    op.create_index(
        "ix_attachments_unattached",
        "attachments",
        ["workspace_id", "created_at"],
        sqlite_where=UNATTACHED,
        postgresql_where=UNATTACHED,
    )


def downgrade() -> None:
    op.drop_index("ix_attachments_unattached", table_name="attachments")
    op.drop_index("ix_attachments_sha256", table_name="attachments")
    op.drop_index("ix_attachments_message", table_name="attachments")
    op.drop_table("attachments")
