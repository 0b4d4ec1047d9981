"""imap checkpoint: where a mailbox's IMAP polling got to, and who polls it (docs/email.md)

Revision ID: 0022
Revises: 0021
"""

import sqlalchemy as sa
from alembic import op

revision = "0022"
down_revision = "0021"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("mailboxes") as batch:
        batch.add_column(sa.Column("imap_checkpoint_of", sa.String(length=2048), nullable=True))
        batch.add_column(sa.Column("imap_uid_validity", sa.BigInteger(), nullable=True))
        batch.add_column(sa.Column("imap_last_uid", sa.BigInteger(), nullable=True))
        batch.add_column(sa.Column("imap_lease_until", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("mailboxes") as batch:
        batch.drop_column("imap_lease_until")
        batch.drop_column("imap_last_uid")
        batch.drop_column("imap_uid_validity")
        batch.drop_column("imap_checkpoint_of")
