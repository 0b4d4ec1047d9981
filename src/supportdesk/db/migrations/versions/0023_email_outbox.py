"""email outbox: mail waiting for the dispatcher role (docs/email.md, "Sending")

Revision ID: 0023
Revises: 0022
"""

import sqlalchemy as sa
from alembic import op

revision = "0023"
down_revision = "0022"
branch_labels = None
depends_on = None

ID = sa.String(length=40)


def _moment(name: str, *, nullable: bool = False) -> sa.Column[object]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def upgrade() -> None:
    op.create_table(
        "email_outbox",
        sa.Column("workspace_id", ID, nullable=False),
        sa.Column("id", ID, nullable=False),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("mailbox_id", ID, nullable=False),
        sa.Column("issue_id", ID, nullable=False),
        sa.Column("message_id", ID, nullable=True),
        sa.Column("recipient", sa.String(length=254), nullable=False),
        sa.Column("message_key", sa.String(length=255), nullable=False),
        sa.Column("answers", sa.String(length=255), nullable=True),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False, server_default="0"),
        _moment("next_attempt_at"),
        _moment("lease_until", nullable=True),
        _moment("last_attempt_at", nullable=True),
        sa.Column("last_error", sa.String(length=500), nullable=True),
        _moment("created_at"),
        sa.ForeignKeyConstraint(
            ["workspace_id"],
            ["workspaces.id"],
            name=op.f("fk_email_outbox_workspace_id_workspaces"),
        ),
        sa.ForeignKeyConstraint(
            ["workspace_id", "mailbox_id"],
            ["mailboxes.workspace_id", "mailboxes.id"],
            name=op.f("fk_email_outbox_workspace_id_mailbox_id_mailboxes"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("workspace_id", "id", name=op.f("pk_email_outbox")),
    )
    op.create_index(
        "ix_email_outbox_due",
        "email_outbox",
        ["next_attempt_at"],
        postgresql_where=sa.text("status = 'pending'"),
        sqlite_where=sa.text("status = 'pending'"),
    )
    op.create_index(
        "ix_email_outbox_recipient", "email_outbox", ["workspace_id", "recipient", "created_at"]
    )


def downgrade() -> None:
    op.drop_index("ix_email_outbox_recipient", table_name="email_outbox")
    op.drop_index("ix_email_outbox_due", table_name="email_outbox")
    op.drop_table("email_outbox")
