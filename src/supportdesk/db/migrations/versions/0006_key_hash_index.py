"""api_keys: the secret hash gets a plain index instead of a table-wide unique constraint

A distributed PostgreSQL (Citus, by workspace_id) enforces only unique constraints that
include the distribution column; the hash of 190 random bits needs no constraint to be
unique, only an index for the lookup (docs/deploy.md).

Revision ID: 0006
Revises: 0005
"""

from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("api_keys") as batch:
        batch.drop_constraint("uq_api_keys_secret_hash", type_="unique")
        batch.create_index("ix_api_keys_secret_hash", ["secret_hash"])


def downgrade() -> None:
    with op.batch_alter_table("api_keys") as batch:
        batch.drop_index("ix_api_keys_secret_hash")
        batch.create_unique_constraint("uq_api_keys_secret_hash", ["secret_hash"])
