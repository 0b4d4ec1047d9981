"""events, webhook_endpoints, webhook_deliveries; the workspace's event counter; the index
that keeps polling by updatedAt fast

Revision ID: 0008
Revises: 0007
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

ID = sa.String(length=40)
PENDING = sa.text("status = 'pending'")


def _moment(name: str, nullable: bool = False) -> sa.Column[object]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def upgrade() -> None:
    with op.batch_alter_table("workspaces") as batch:
        batch.add_column(
            sa.Column("last_event_sequence", sa.Integer(), nullable=False, server_default="0")
        )
    op.create_index("ix_issues_updated", "issues", ["workspace_id", "updated_at", "id"])
    op.create_table(
        "events",
        sa.Column("workspace_id", ID, nullable=False),
        sa.Column("sequence", sa.Integer(), nullable=False),
        sa.Column("id", ID, nullable=False),
        sa.Column("type", sa.String(length=50), nullable=False),
        sa.Column("api_version", sa.String(length=10), nullable=False),
        sa.Column("actor", sa.JSON(), nullable=False),
        sa.Column("data", sa.JSON(), nullable=False),
        _moment("created_at"),
        sa.ForeignKeyConstraint(
            ["workspace_id"], ["workspaces.id"], name=op.f("fk_events_workspace_id_workspaces")
        ),
        sa.PrimaryKeyConstraint("workspace_id", "sequence", name=op.f("pk_events")),
        sa.UniqueConstraint("workspace_id", "id", name=op.f("uq_events_workspace_id_id")),
    )
    op.create_index("ix_events_created_at", "events", ["created_at"])
    op.create_table(
        "webhook_endpoints",
        sa.Column("workspace_id", ID, nullable=False),
        sa.Column("id", ID, nullable=False),
        sa.Column("url", sa.String(length=2048), nullable=False),
        sa.Column("description", sa.String(length=500), nullable=False, server_default=""),
        sa.Column("event_types", sa.Text(), nullable=False, server_default=""),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("disabled_reason", sa.String(length=20), nullable=True),
        sa.Column("secret_sealed", sa.Text(), nullable=False),
        sa.Column("secret_prefix", sa.String(length=16), nullable=False),
        sa.Column("previous_secret_sealed", sa.Text(), nullable=True),
        _moment("previous_secret_expires_at", nullable=True),
        _moment("last_success_at", nullable=True),
        _moment("failing_since", nullable=True),
        _moment("created_at"),
        _moment("updated_at"),
        sa.ForeignKeyConstraint(
            ["workspace_id"],
            ["workspaces.id"],
            name=op.f("fk_webhook_endpoints_workspace_id_workspaces"),
        ),
        sa.PrimaryKeyConstraint("workspace_id", "id", name=op.f("pk_webhook_endpoints")),
    )
    op.create_table(
        "webhook_deliveries",
        sa.Column("workspace_id", ID, nullable=False),
        sa.Column("id", ID, nullable=False),
        sa.Column("endpoint_id", ID, nullable=False),
        sa.Column("event_id", ID, nullable=False),
        sa.Column("event_type", sa.String(length=50), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=True),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False, server_default="0"),
        _moment("next_attempt_at"),
        _moment("lease_until", nullable=True),
        _moment("last_attempt_at", nullable=True),
        sa.Column("last_response_status", sa.Integer(), nullable=True),
        sa.Column("last_error", sa.String(length=500), nullable=True),
        sa.Column("duration_ms", sa.Integer(), nullable=True),
        _moment("created_at"),
        sa.ForeignKeyConstraint(
            ["workspace_id"],
            ["workspaces.id"],
            name=op.f("fk_webhook_deliveries_workspace_id_workspaces"),
        ),
        sa.ForeignKeyConstraint(
            ["workspace_id", "endpoint_id"],
            ["webhook_endpoints.workspace_id", "webhook_endpoints.id"],
            name=op.f("fk_webhook_deliveries_workspace_id_endpoint_id_webhook_endpoints"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("workspace_id", "id", name=op.f("pk_webhook_deliveries")),
    )
    op.create_index(
        "ix_webhook_deliveries_endpoint",
        "webhook_deliveries",
        ["workspace_id", "endpoint_id", "id"],
    )
    op.create_index(
        "ix_webhook_deliveries_due",
        "webhook_deliveries",
        ["next_attempt_at"],
        postgresql_where=PENDING,
        sqlite_where=PENDING,
    )
    op.create_index("ix_webhook_deliveries_created_at", "webhook_deliveries", ["created_at"])


def downgrade() -> None:
    op.drop_table("webhook_deliveries")
    op.drop_table("webhook_endpoints")
    op.drop_index("ix_events_created_at", table_name="events")
    op.drop_table("events")
    op.drop_index("ix_issues_updated", table_name="issues")
    with op.batch_alter_table("workspaces") as batch:
        batch.drop_column("last_event_sequence")
