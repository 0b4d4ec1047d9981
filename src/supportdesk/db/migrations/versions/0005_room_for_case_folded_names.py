"""room for case-folded machine-user names and admin e-mails

casefold() turns one character into up to three ("ß" -> "ss"), so the normalised column
of a 100-character name needs 300; PostgreSQL refused such names before.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-22 15:10:00.000000
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("machine_users", schema=None) as batch_op:
        batch_op.alter_column(
            "name_normalized",
            existing_type=sa.String(length=100),
            type_=sa.String(length=300),
            existing_nullable=False,
        )
    with op.batch_alter_table("org_admins", schema=None) as batch_op:
        batch_op.alter_column(
            "email_normalized",
            existing_type=sa.String(length=254),
            type_=sa.String(length=762),
            existing_nullable=False,
        )


def downgrade() -> None:
    with op.batch_alter_table("org_admins", schema=None) as batch_op:
        batch_op.alter_column(
            "email_normalized",
            existing_type=sa.String(length=762),
            type_=sa.String(length=254),
            existing_nullable=False,
        )
    with op.batch_alter_table("machine_users", schema=None) as batch_op:
        batch_op.alter_column(
            "name_normalized",
            existing_type=sa.String(length=300),
            type_=sa.String(length=100),
            existing_nullable=False,
        )
