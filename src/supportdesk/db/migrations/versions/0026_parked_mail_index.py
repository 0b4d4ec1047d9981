"""parked mail index: a mailbox's parked mail, newest first, without reading the rest

Settings → Email lists each mailbox's parked mail. A partial index holds only those rows,
so the list costs the same however much mail the mailbox took.

Revision ID: 0026
Revises: 0025
"""

import sqlalchemy as sa
from alembic import op

revision = "0026"
down_revision = "0025"
branch_labels = None
depends_on = None

PARKED = sa.text("status = 'parked'")


def upgrade() -> None:
    op.create_index(
        "ix_inbound_emails_parked",
        "inbound_emails",
        ["workspace_id", "mailbox_id", "received_at"],
        sqlite_where=PARKED,
        postgresql_where=PARKED,
    )


def downgrade() -> None:
    op.drop_index("ix_inbound_emails_parked", table_name="inbound_emails")
