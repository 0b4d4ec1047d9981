"""Members (docs/working-issues.md): org admins become the workspace's members, and issues
gain an assignee

- `org_admins` holds every member (role admin or agent); its ids take the `mem_` prefix
  (the random part stays, so they sort as before) and the audit log follows them. The
  event log keeps the ids it was written with: it is history.
- An agent added over the API has no password (only admins log in): `password_hash`
  may be NULL.
- A member without a name is named by their e-mail.
- Settings-page sessions end: they name the old ids. Admins log in again.
- `issues.assignee_type` (`member` | `machine_user`) and `assignee_id`, with an index
  for the assignee filter.

Revision ID: 0012
Revises: 0011
"""

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

ID = sa.String(length=40)
# Marks this migration's statements over every workspace's rows (the tenancy tests let
# only marked statements through).
EVERY_WORKSPACE = "/* migration: every workspace */ "


def _run(statement: str) -> None:
    op.execute(sa.text(EVERY_WORKSPACE + statement))


def _reprefix(old: str, new: str) -> None:
    """Move every member id, and the audit log's mentions of them, from `old_` to `new_`."""
    length = len(old) + 2  # substr counts from 1, past the prefix and its underscore
    for table, column in (
        ("org_admins", "id"),
        ("audit_events", "actor_id"),
        ("audit_events", "target_id"),
    ):
        _run(
            f"UPDATE {table} SET {column} = '{new}_' || substr({column}, {length}) "
            f"WHERE {column} LIKE '{old}\\_%' ESCAPE '\\'"
        )


def upgrade() -> None:
    _run("DELETE FROM org_admin_sessions")
    _reprefix("adm", "mem")
    _run("UPDATE audit_events SET target_type = 'Member' WHERE target_type = 'OrgAdmin'")
    _run("UPDATE org_admins SET name = email WHERE name = ''")
    with op.batch_alter_table("org_admins") as batch:
        batch.alter_column("password_hash", existing_type=sa.String(length=200), nullable=True)
    with op.batch_alter_table("issues") as batch:
        batch.add_column(sa.Column("assignee_type", sa.String(length=20), nullable=True))
        batch.add_column(sa.Column("assignee_id", ID, nullable=True))
    op.create_index("ix_issues_assignee", "issues", ["workspace_id", "assignee_id", "id"])


def downgrade() -> None:
    op.drop_index("ix_issues_assignee", table_name="issues")
    with op.batch_alter_table("issues") as batch:
        batch.drop_column("assignee_id")
        batch.drop_column("assignee_type")
    # A member without a password gets one that matches nothing.
    _run("UPDATE org_admins SET password_hash = '' WHERE password_hash IS NULL")
    with op.batch_alter_table("org_admins") as batch:
        batch.alter_column("password_hash", existing_type=sa.String(length=200), nullable=False)
    _run("DELETE FROM org_admin_sessions")
    _run("UPDATE audit_events SET target_type = 'OrgAdmin' WHERE target_type = 'Member'")
    _reprefix("mem", "adm")
