"""foundation: workspaces, admins, machine users, keys, audit, issues

Revision ID: 0001
Revises:
Create Date: 2026-11-22 14:14:38.449545
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "workspaces",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("last_ticket_number", sa.Integer(), server_default="0", nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_workspaces")),
    )
    op.create_table(
        "accounts",
        sa.Column("workspace_id", sa.String(length=40), nullable=False),
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("domain", sa.String(length=253), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["workspace_id"], ["workspaces.id"], name=op.f("fk_accounts_workspace_id_workspaces")
        ),
        sa.PrimaryKeyConstraint("workspace_id", "id", name=op.f("pk_accounts")),
        sa.UniqueConstraint("workspace_id", "domain", name=op.f("uq_accounts_workspace_id_domain")),
    )
    op.create_table(
        "audit_events",
        sa.Column("workspace_id", sa.String(length=40), nullable=False),
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("action", sa.String(length=50), nullable=False),
        sa.Column("actor_type", sa.String(length=20), nullable=False),
        sa.Column("actor_id", sa.String(length=40), nullable=True),
        sa.Column("actor_label", sa.String(length=254), server_default="", nullable=False),
        sa.Column("target_type", sa.String(length=30), nullable=False),
        sa.Column("target_id", sa.String(length=40), nullable=False),
        sa.Column("ip_address", sa.String(length=64), nullable=True),
        sa.Column("data", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["workspace_id"],
            ["workspaces.id"],
            name=op.f("fk_audit_events_workspace_id_workspaces"),
        ),
        sa.PrimaryKeyConstraint("workspace_id", "id", name=op.f("pk_audit_events")),
    )
    op.create_table(
        "machine_users",
        sa.Column("workspace_id", sa.String(length=40), nullable=False),
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("name_normalized", sa.String(length=100), nullable=False),
        sa.Column("description", sa.String(length=500), server_default="", nullable=False),
        sa.Column("managed", sa.Boolean(), server_default="0", nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["workspace_id"],
            ["workspaces.id"],
            name=op.f("fk_machine_users_workspace_id_workspaces"),
        ),
        sa.PrimaryKeyConstraint("workspace_id", "id", name=op.f("pk_machine_users")),
        sa.UniqueConstraint(
            "workspace_id",
            "name_normalized",
            name=op.f("uq_machine_users_workspace_id_name_normalized"),
        ),
    )
    op.create_table(
        "org_admins",
        sa.Column("workspace_id", sa.String(length=40), nullable=False),
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("email", sa.String(length=254), nullable=False),
        sa.Column("email_normalized", sa.String(length=254), nullable=False),
        sa.Column("name", sa.String(length=200), server_default="", nullable=False),
        sa.Column("password_hash", sa.String(length=200), nullable=False),
        sa.Column("role", sa.String(length=20), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["workspace_id"], ["workspaces.id"], name=op.f("fk_org_admins_workspace_id_workspaces")
        ),
        sa.PrimaryKeyConstraint("workspace_id", "id", name=op.f("pk_org_admins")),
        sa.UniqueConstraint(
            "workspace_id",
            "email_normalized",
            name=op.f("uq_org_admins_workspace_id_email_normalized"),
        ),
    )
    with op.batch_alter_table("org_admins", schema=None) as batch_op:
        batch_op.create_index("ix_org_admins_login", ["email_normalized"], unique=False)

    op.create_table(
        "api_keys",
        sa.Column("workspace_id", sa.String(length=40), nullable=False),
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("machine_user_id", sa.String(length=40), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("key_prefix", sa.String(length=12), nullable=False),
        sa.Column("secret_hash", sa.String(length=64), nullable=False),
        sa.Column("scopes", sa.Text(), nullable=False),
        sa.Column("kind", sa.String(length=10), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["workspace_id", "machine_user_id"],
            ["machine_users.workspace_id", "machine_users.id"],
            name=op.f("fk_api_keys_workspace_id_machine_user_id_machine_users"),
        ),
        sa.ForeignKeyConstraint(
            ["workspace_id"], ["workspaces.id"], name=op.f("fk_api_keys_workspace_id_workspaces")
        ),
        sa.PrimaryKeyConstraint("workspace_id", "id", name=op.f("pk_api_keys")),
        sa.UniqueConstraint("secret_hash", name=op.f("uq_api_keys_secret_hash")),
    )
    with op.batch_alter_table("api_keys", schema=None) as batch_op:
        batch_op.create_index(
            "ix_api_keys_machine_user", ["workspace_id", "machine_user_id", "id"], unique=False
        )

    op.create_table(
        "contacts",
        sa.Column("workspace_id", sa.String(length=40), nullable=False),
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("email", sa.String(length=254), nullable=False),
        sa.Column("email_normalized", sa.String(length=254), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=True),
        sa.Column("account_id", sa.String(length=40), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["workspace_id", "account_id"],
            ["accounts.workspace_id", "accounts.id"],
            name=op.f("fk_contacts_workspace_id_account_id_accounts"),
        ),
        sa.ForeignKeyConstraint(
            ["workspace_id"], ["workspaces.id"], name=op.f("fk_contacts_workspace_id_workspaces")
        ),
        sa.PrimaryKeyConstraint("workspace_id", "id", name=op.f("pk_contacts")),
        sa.UniqueConstraint(
            "workspace_id",
            "email_normalized",
            name=op.f("uq_contacts_workspace_id_email_normalized"),
        ),
    )
    with op.batch_alter_table("contacts", schema=None) as batch_op:
        batch_op.create_index(
            "ix_contacts_account", ["workspace_id", "account_id", "id"], unique=False
        )

    op.create_table(
        "issues",
        sa.Column("workspace_id", sa.String(length=40), nullable=False),
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("ticket_number", sa.Integer(), nullable=False),
        sa.Column("subject", sa.String(length=255), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("priority", sa.String(length=20), nullable=False),
        sa.Column("requester_id", sa.String(length=40), nullable=False),
        sa.Column("message_count", sa.Integer(), server_default="0", nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["workspace_id", "requester_id"],
            ["contacts.workspace_id", "contacts.id"],
            name=op.f("fk_issues_workspace_id_requester_id_contacts"),
        ),
        sa.ForeignKeyConstraint(
            ["workspace_id"], ["workspaces.id"], name=op.f("fk_issues_workspace_id_workspaces")
        ),
        sa.PrimaryKeyConstraint("workspace_id", "id", name=op.f("pk_issues")),
        sa.UniqueConstraint(
            "workspace_id", "ticket_number", name=op.f("uq_issues_workspace_id_ticket_number")
        ),
    )
    with op.batch_alter_table("issues", schema=None) as batch_op:
        batch_op.create_index(
            "ix_issues_requester", ["workspace_id", "requester_id", "id"], unique=False
        )
        batch_op.create_index("ix_issues_status", ["workspace_id", "status", "id"], unique=False)

    op.create_table(
        "messages",
        sa.Column("workspace_id", sa.String(length=40), nullable=False),
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("issue_id", sa.String(length=40), nullable=False),
        sa.Column("sender_name", sa.String(length=254), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("author_type", sa.String(length=20), nullable=False),
        sa.Column("author_id", sa.String(length=40), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["workspace_id", "issue_id"],
            ["issues.workspace_id", "issues.id"],
            name=op.f("fk_messages_workspace_id_issue_id_issues"),
        ),
        sa.ForeignKeyConstraint(
            ["workspace_id"], ["workspaces.id"], name=op.f("fk_messages_workspace_id_workspaces")
        ),
        sa.PrimaryKeyConstraint("workspace_id", "id", name=op.f("pk_messages")),
    )
    with op.batch_alter_table("messages", schema=None) as batch_op:
        batch_op.create_index("ix_messages_issue", ["workspace_id", "issue_id", "id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("messages", schema=None) as batch_op:
        batch_op.drop_index("ix_messages_issue")

    op.drop_table("messages")
    with op.batch_alter_table("issues", schema=None) as batch_op:
        batch_op.drop_index("ix_issues_status")
        batch_op.drop_index("ix_issues_requester")

    op.drop_table("issues")
    with op.batch_alter_table("contacts", schema=None) as batch_op:
        batch_op.drop_index("ix_contacts_account")

    op.drop_table("contacts")
    with op.batch_alter_table("api_keys", schema=None) as batch_op:
        batch_op.drop_index("ix_api_keys_machine_user")

    op.drop_table("api_keys")
    with op.batch_alter_table("org_admins", schema=None) as batch_op:
        batch_op.drop_index("ix_org_admins_login")

    op.drop_table("org_admins")
    op.drop_table("machine_users")
    op.drop_table("audit_events")
    op.drop_table("accounts")
    op.drop_table("workspaces")
