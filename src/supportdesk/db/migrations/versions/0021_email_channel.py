"""email channel: mailboxes, raw inbound mail, messages' e-mail side and channel (docs/email.md)

Revision ID: 0021
Revises: 0020
"""

import sqlalchemy as sa
from alembic import op

revision = "0021"
down_revision = "0020"
branch_labels = None
depends_on = None

ID = sa.String(length=40)


def _moment(name: str, *, nullable: bool = False) -> sa.Column[object]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def _tenant(table: str) -> list[sa.Column[object] | sa.Constraint]:
    return [
        sa.Column("workspace_id", ID, nullable=False),
        sa.Column("id", ID, nullable=False),
        sa.ForeignKeyConstraint(
            ["workspace_id"], ["workspaces.id"], name=op.f(f"fk_{table}_workspace_id_workspaces")
        ),
        sa.PrimaryKeyConstraint("workspace_id", "id", name=op.f(f"pk_{table}")),
    ]


def upgrade() -> None:
    with op.batch_alter_table("messages") as batch:
        batch.add_column(
            sa.Column("channel", sa.String(length=20), nullable=False, server_default="api")
        )
    op.create_table(
        "mailboxes",
        *_tenant("mailboxes"),
        sa.Column("address", sa.String(length=254), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False, server_default=""),
        sa.Column("acknowledge", sa.Boolean(), nullable=False),
        sa.Column("imap_url_shown", sa.String(length=2048), nullable=True),
        sa.Column("imap_url_sealed", sa.Text(), nullable=True),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("token_prefix", sa.String(length=16), nullable=False),
        _moment("created_at"),
        _moment("updated_at"),
    )
    op.create_index("ix_mailboxes_address", "mailboxes", ["address"])
    op.create_index("ix_mailboxes_token_hash", "mailboxes", ["token_hash"])
    op.create_table(
        "inbound_emails",
        *_tenant("inbound_emails"),
        sa.Column("mailbox_id", ID, nullable=False),
        sa.Column("door", sa.String(length=10), nullable=False),
        sa.Column("message_key", sa.String(length=255), nullable=False),
        sa.Column("sender", sa.String(length=254), nullable=True),
        sa.Column("subject", sa.String(length=255), nullable=True),
        sa.Column("size_bytes", sa.Integer(), nullable=False),
        sa.Column("raw", sa.LargeBinary(), nullable=False),
        sa.Column("automatic", sa.Boolean(), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("reason", sa.String(length=500), nullable=True),
        sa.Column("issue_id", ID, nullable=True),
        sa.Column("message_id", ID, nullable=True),
        _moment("received_at"),
        sa.ForeignKeyConstraint(
            ["workspace_id", "mailbox_id"],
            ["mailboxes.workspace_id", "mailboxes.id"],
            name=op.f("fk_inbound_emails_workspace_id_mailbox_id_mailboxes"),
        ),
        sa.UniqueConstraint(
            "workspace_id",
            "mailbox_id",
            "message_key",
            name=op.f("uq_inbound_emails_workspace_id_mailbox_id_message_key"),
        ),
    )
    op.create_index(
        "ix_inbound_emails_sender", "inbound_emails", ["workspace_id", "sender", "received_at"]
    )
    op.create_table(
        "message_emails",
        *_tenant("message_emails"),
        sa.Column("mailbox_id", ID, nullable=True),
        sa.Column("direction", sa.String(length=10), nullable=False),
        sa.Column("message_key", sa.String(length=255), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("original_text", sa.Text(), nullable=True),
        sa.Column("html", sa.Text(), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        _moment("created_at"),
        sa.ForeignKeyConstraint(
            ["workspace_id", "id"],
            ["messages.workspace_id", "messages.id"],
            name=op.f("fk_message_emails_workspace_id_id_messages"),
        ),
    )
    op.create_index("ix_message_emails_key", "message_emails", ["workspace_id", "message_key"])


def downgrade() -> None:
    op.drop_index("ix_message_emails_key", table_name="message_emails")
    op.drop_table("message_emails")
    op.drop_index("ix_inbound_emails_sender", table_name="inbound_emails")
    op.drop_table("inbound_emails")
    op.drop_index("ix_mailboxes_token_hash", table_name="mailboxes")
    op.drop_index("ix_mailboxes_address", table_name="mailboxes")
    op.drop_table("mailboxes")
    with op.batch_alter_table("messages") as batch:
        batch.drop_column("channel")
