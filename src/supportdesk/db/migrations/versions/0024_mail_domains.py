"""mail domains: who may have mailboxes on a domain (docs/email.md, "Several workspaces")

Each organisation's domain already in use (`mail.acme.example` is on `acme.example`) goes to
the workspace of its earliest mailbox there. Mailboxes that other workspaces already had on
it stay where they are; they only cannot be made anew.

Revision ID: 0024
Revises: 0023
"""

from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op
from publicsuffixlist import PublicSuffixList

revision = "0024"
down_revision = "0023"
branch_labels = None
depends_on = None

# Marks the statement over every workspace's mailboxes (the tenancy tests let only marked
# statements through).
EVERY_WORKSPACE = "/* migration: every workspace */ "


def upgrade() -> None:
    domains = op.create_table(
        "mail_domains",
        sa.Column("domain", sa.String(length=253), nullable=False),
        sa.Column("held_by", sa.String(length=40), nullable=True),
        sa.Column("granted", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("domain", name=op.f("pk_mail_domains")),
    )
    in_use = op.get_bind().execute(
        sa.text(
            EVERY_WORKSPACE + "SELECT workspace_id, address FROM mailboxes ORDER BY created_at, id"
        )
    )
    suffixes = PublicSuffixList()
    holders: dict[str, str] = {}
    for workspace_id, address in in_use:
        # As domain/mailboxes/domains.py reads it (the service always stored addresses
        # lowercase; a row written by hand may not be).
        domain = address.rpartition("@")[2].strip().lower()
        domain = suffixes.privatesuffix(domain) or domain
        if 0 < len(domain) <= 253:  # anything else is no mail domain the service wrote
            holders.setdefault(domain, workspace_id)
    moment = datetime.now(UTC)
    rows = [
        {
            "domain": domain,
            "held_by": holder,
            "granted": False,
            "created_at": moment,
            "updated_at": moment,
        }
        for domain, holder in holders.items()
    ]
    if rows:
        op.bulk_insert(domains, rows)


def downgrade() -> None:
    op.drop_table("mail_domains")
