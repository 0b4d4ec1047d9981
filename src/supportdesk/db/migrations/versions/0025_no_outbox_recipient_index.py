"""no outbox recipient index: the hourly acknowledgement check reads by id range

The check that a sender had no acknowledgement within the hour compares plus forms of an
address (`victim+1@` is `victim@`), which an index on the whole recipient cannot match;
it reads the hour's outbox by its primary key instead, and nothing else reads by
recipient. Every reply's outbox row no longer pays for the index.

Revision ID: 0025
Revises: 0024
"""

from alembic import op

revision = "0025"
down_revision = "0024"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.drop_index("ix_email_outbox_recipient", table_name="email_outbox")


def downgrade() -> None:
    op.create_index(
        "ix_email_outbox_recipient", "email_outbox", ["workspace_id", "recipient", "created_at"]
    )
