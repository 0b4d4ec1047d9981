"""Table definitions (SQLAlchemy Core).

Every tenant table carries `workspace_id` first in its primary key, and every unique
constraint and foreign key includes it, so a distributed PostgreSQL can shard by it and
no lookup can cross a workspace by accident.
"""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Column,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    PrimaryKeyConstraint,
    String,
    Table,
    Text,
    UniqueConstraint,
    text,
)

from supportdesk.db.types import UTCDateTime

metadata = MetaData(
    naming_convention={
        "ix": "ix_%(table_name)s_%(column_0_N_name)s",
        "uq": "uq_%(table_name)s_%(column_0_N_name)s",
        "fk": "fk_%(table_name)s_%(column_0_N_name)s_%(referred_table_name)s",
        "pk": "pk_%(table_name)s",
    }
)

ID = String(40)
# casefold() turns one character into up to three ("ß" -> "ss"): room for the folded form.
FOLDING_GROWTH = 3


def _tenant_columns() -> list[Column[object]]:
    return [
        Column("workspace_id", ID, ForeignKey("workspaces.id"), nullable=False),
        Column("id", ID, nullable=False),
    ]


workspaces = Table(
    "workspaces",
    metadata,
    Column("id", ID, primary_key=True),
    Column("name", String(200), nullable=False),
    # The ticket counter moves in the transaction that inserts the issue: gap-free.
    Column("last_ticket_number", Integer, nullable=False, server_default="0"),
    # The event counter, the same way: each event's `sequence` is the next, gap-free.
    Column("last_event_sequence", Integer, nullable=False, server_default="0"),
    # Moved by every change of a webhook endpoint, with its event (domain/events/log.py).
    Column("webhook_generation", Integer, nullable=False, server_default="0"),
    Column("created_at", UTCDateTime, nullable=False),
)

# The workspace's members (docs/working-issues.md; `mem_` ids), role admin or agent. The table
# keeps its first name: org admins are the members with role admin, and only they log in
# to the settings page. A member added over the API has no password.
org_admins = Table(
    "org_admins",
    metadata,
    *_tenant_columns(),
    Column("email", String(254), nullable=False),
    Column("email_normalized", String(254 * FOLDING_GROWTH), nullable=False),
    Column("name", String(200), nullable=False, server_default=""),
    Column("password_hash", String(200), nullable=True),
    Column("role", String(20), nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    PrimaryKeyConstraint("workspace_id", "id"),
    UniqueConstraint("workspace_id", "email_normalized"),
    Index("ix_org_admins_login", "email_normalized"),
)

machine_users = Table(
    "machine_users",
    metadata,
    *_tenant_columns(),
    Column("name", String(100), nullable=False),
    Column("name_normalized", String(100 * FOLDING_GROWTH), nullable=False),
    Column("description", String(500), nullable=False, server_default=""),
    Column("managed", Boolean, nullable=False, server_default="0"),
    Column("created_at", UTCDateTime, nullable=False),
    Column("updated_at", UTCDateTime, nullable=False),
    PrimaryKeyConstraint("workspace_id", "id"),
    UniqueConstraint("workspace_id", "name_normalized"),
)

api_keys = Table(
    "api_keys",
    metadata,
    *_tenant_columns(),
    Column("machine_user_id", ID, nullable=False),
    Column("name", String(100), nullable=False),
    Column("key_prefix", String(12), nullable=False),
    # SHA-256 of the secret, hex; the secret itself is never stored.
    Column("secret_hash", String(64), nullable=False),
    # Sorted, space-separated.
    Column("scopes", Text, nullable=False),
    Column("kind", String(10), nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    Column("last_used_at", UTCDateTime),
    Column("expires_at", UTCDateTime),
    Column("revoked_at", UTCDateTime),
    PrimaryKeyConstraint("workspace_id", "id"),
    # Authentication finds a key by its hash before it knows the workspace. Not a unique
    # constraint: a distributed PostgreSQL enforces only those that hold workspace_id, and
    # 190 random bits need no constraint to be unique.
    Index("ix_api_keys_secret_hash", "secret_hash"),
    ForeignKeyConstraint(
        ["workspace_id", "machine_user_id"], ["machine_users.workspace_id", "machine_users.id"]
    ),
    Index("ix_api_keys_machine_user", "workspace_id", "machine_user_id", "id"),
)

audit_events = Table(
    "audit_events",
    metadata,
    *_tenant_columns(),
    Column("action", String(50), nullable=False),
    Column("actor_type", String(20), nullable=False),
    Column("actor_id", ID),
    Column("actor_label", String(254), nullable=False, server_default=""),
    Column("target_type", String(30), nullable=False),
    Column("target_id", ID, nullable=False),
    Column("ip_address", String(64)),
    Column("data", JSON, nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    PrimaryKeyConstraint("workspace_id", "id"),
)

accounts = Table(
    "accounts",
    metadata,
    *_tenant_columns(),
    Column("name", String(200), nullable=False),
    Column("domain", String(253)),
    Column("created_at", UTCDateTime, nullable=False),
    Column("updated_at", UTCDateTime, nullable=False),
    PrimaryKeyConstraint("workspace_id", "id"),
    UniqueConstraint("workspace_id", "domain"),
)

contacts = Table(
    "contacts",
    metadata,
    *_tenant_columns(),
    Column("email", String(254), nullable=False),
    Column("email_normalized", String(254), nullable=False),
    Column("name", String(200)),
    Column("account_id", ID),
    Column("created_at", UTCDateTime, nullable=False),
    Column("updated_at", UTCDateTime, nullable=False),
    PrimaryKeyConstraint("workspace_id", "id"),
    UniqueConstraint("workspace_id", "email_normalized"),
    ForeignKeyConstraint(["workspace_id", "account_id"], ["accounts.workspace_id", "accounts.id"]),
    Index("ix_contacts_account", "workspace_id", "account_id", "id"),
)

issues = Table(
    "issues",
    metadata,
    *_tenant_columns(),
    Column("ticket_number", Integer, nullable=False),
    Column("subject", String(255), nullable=False),
    Column("status", String(20), nullable=False),
    Column("priority", String(20), nullable=False),
    Column("requester_id", ID, nullable=False),
    Column("message_count", Integer, nullable=False, server_default="0"),
    Column("created_at", UTCDateTime, nullable=False),
    Column("updated_at", UTCDateTime, nullable=False),
    # The issue this one was merged into (it is then closed for good); docs/working-issues.md.
    Column("merged_into", ID, nullable=True),
    # Who works on it: a member or a machine user of the workspace (`member` |
    # `machine_user`), both NULL when nobody does; docs/working-issues.md.
    Column("assignee_type", String(20), nullable=True),
    Column("assignee_id", ID, nullable=True),
    # Full-text search over the subject and the thread lives beside the table, per backend
    # (migrations 0013 and 0016, domain/issues/search.py): SQLite's FTS5 index `issues_fts`
    # (its own copy of the texts, and the workspace) numbers its rows by this column;
    # PostgreSQL has a tsvector column `search_vector` with a GIN index, and leaves this one
    # NULL.
    Column("search_rowid", Integer),
    PrimaryKeyConstraint("workspace_id", "id"),
    UniqueConstraint("workspace_id", "ticket_number"),
    ForeignKeyConstraint(
        ["workspace_id", "requester_id"], ["contacts.workspace_id", "contacts.id"]
    ),
    Index("ix_issues_status", "workspace_id", "status", "id"),
    Index("ix_issues_requester", "workspace_id", "requester_id", "id"),
    # Polling for changes: issues(filter: {updatedAfter}, orderBy: UPDATED_AT_ASC).
    Index("ix_issues_updated", "workspace_id", "updated_at", "id"),
    # issues(filter: {assigneeId}) and unassigning a removed member's issues.
    Index("ix_issues_assignee", "workspace_id", "assignee_id", "id"),
)

# Labels tag issues (docs/working-issues.md); a name is unique in its workspace, any case.
labels = Table(
    "labels",
    metadata,
    *_tenant_columns(),
    Column("name", String(50), nullable=False),
    Column("name_normalized", String(50 * FOLDING_GROWTH), nullable=False),
    Column("color", String(7), nullable=False),
    Column("description", String(500), nullable=False, server_default=""),
    Column("created_at", UTCDateTime, nullable=False),
    Column("updated_at", UTCDateTime, nullable=False),
    PrimaryKeyConstraint("workspace_id", "id"),
    UniqueConstraint("workspace_id", "name_normalized"),
)

# Which labels an issue carries (at most 20 each); deleting a label takes it off every issue.
issue_labels = Table(
    "issue_labels",
    metadata,
    Column("workspace_id", ID, ForeignKey("workspaces.id"), nullable=False),
    Column("issue_id", ID, nullable=False),
    Column("label_id", ID, nullable=False),
    Column("added_at", UTCDateTime, nullable=False),
    PrimaryKeyConstraint("workspace_id", "issue_id", "label_id"),
    ForeignKeyConstraint(["workspace_id", "issue_id"], ["issues.workspace_id", "issues.id"]),
    ForeignKeyConstraint(
        ["workspace_id", "label_id"], ["labels.workspace_id", "labels.id"], ondelete="CASCADE"
    ),
    # The all-of label filter starts from a label.
    Index("ix_issue_labels_label", "workspace_id", "label_id", "issue_id"),
)

messages = Table(
    "messages",
    metadata,
    *_tenant_columns(),
    Column("issue_id", ID, nullable=False),
    Column("sender_name", String(254), nullable=False),
    Column("body", Text, nullable=False),
    Column("author_type", String(20), nullable=False),
    Column("author_id", ID, nullable=False),
    # "public", or "internal" for a note the requester never sees (docs/working-issues.md).
    Column("visibility", String(20), nullable=False, server_default="public"),
    Column("created_at", UTCDateTime, nullable=False),
    # Where it came from: "api", "inbox" (a person's page) or "email" (docs/email.md).
    Column("channel", String(20), nullable=False, server_default="api"),
    PrimaryKeyConstraint("workspace_id", "id"),
    ForeignKeyConstraint(["workspace_id", "issue_id"], ["issues.workspace_id", "issues.id"]),
    Index("ix_messages_issue", "workspace_id", "issue_id", "id"),
)

# Files a message carries (docs/attachments.md). A row is made by createAttachmentUpload,
# gets its hash, size and sniffed type when the bytes arrive (`uploaded_at`), and its
# message when a createIssue, replyToIssue or addNote takes it; one never attached is
# removed with its bytes a day after it was made. The bytes live in the object store under
# `storage_key` (`<workspace_id>/<sha256>`: identical bytes of a workspace are kept once).
# A queue filter a member keeps under a name (docs/inbox.md): their own (`owner_id`), or
# shared with every member of the workspace (`owner_id` NULL, saved by an admin).
saved_views = Table(
    "saved_views",
    metadata,
    *_tenant_columns(),
    Column("owner_id", ID, nullable=True),
    Column("name", String(50), nullable=False),
    # The filter as JSON: the queue's own names and values (web/pages/inbox.py).
    Column("filter", Text, nullable=False),
    Column("created_by", ID, nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    PrimaryKeyConstraint("workspace_id", "id"),
    Index("ix_saved_views_owner", "workspace_id", "owner_id"),
)

attachments = Table(
    "attachments",
    metadata,
    *_tenant_columns(),
    Column("message_id", ID, nullable=True),
    Column("file_name", String(255), nullable=False),
    Column("size_bytes", Integer, nullable=False),
    Column("content_type", String(255), nullable=False),
    Column("sha256", String(64), nullable=True),
    Column("storage_key", String(200), nullable=True),
    Column("created_at", UTCDateTime, nullable=False),
    Column("uploaded_at", UTCDateTime, nullable=True),
    Column("expires_at", UTCDateTime, nullable=False),
    Column("uploader_key_id", ID, nullable=True),
    PrimaryKeyConstraint("workspace_id", "id"),
    ForeignKeyConstraint(["workspace_id", "message_id"], ["messages.workspace_id", "messages.id"]),
    Index("ix_attachments_message", "workspace_id", "message_id"),
    # Whether other rows still hold an object's bytes, before they are deleted.
    Index("ix_attachments_sha256", "workspace_id", "sha256"),
    # The day-old uploads never attached; attached rows leave this index.
    Index(
        "ix_attachments_unattached",
        "workspace_id",
        "created_at",
        sqlite_where=text("message_id IS NULL"),
        postgresql_where=text("message_id IS NULL"),
    ),
)

# Who is on an issue's page in the inbox, and whether they are writing a reply
# (docs/inbox-live.md): a row per member and issue, its beat renewed every couple of
# seconds while the page is open. In the database, so every server process sees it.
issue_presence = Table(
    "issue_presence",
    metadata,
    Column("workspace_id", ID, ForeignKey("workspaces.id"), nullable=False),
    Column("issue_id", ID, nullable=False),
    Column("member_id", ID, nullable=False),
    Column("state", String(10), nullable=False),
    Column("seen_at", UTCDateTime, nullable=False),
    PrimaryKeyConstraint("workspace_id", "issue_id", "member_id"),
    ForeignKeyConstraint(
        ["workspace_id", "issue_id"], ["issues.workspace_id", "issues.id"], ondelete="CASCADE"
    ),
    ForeignKeyConstraint(
        ["workspace_id", "member_id"],
        ["org_admins.workspace_id", "org_admins.id"],
        ondelete="CASCADE",
    ),
)

# Knowledge-base articles. Full-text search lives beside the table, per backend (migrations
# 0002 and 0016, domain/articles/search.py): SQLite keeps an FTS5 index `articles_fts` whose
# rows are numbered by `search_rowid` (FTS5 needs an integer row id that VACUUM keeps, which
# a table with a text primary key does not give); PostgreSQL has a generated tsvector column
# `search_vector` with a GIN index, and leaves `search_rowid` NULL.
articles = Table(
    "articles",
    metadata,
    *_tenant_columns(),
    Column("title", String(255), nullable=False),
    Column("body", Text, nullable=False),
    Column("status", String(20), nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    Column("updated_at", UTCDateTime, nullable=False),
    Column("published_at", UTCDateTime),
    Column("search_rowid", Integer),
    PrimaryKeyConstraint("workspace_id", "id"),
    Index("ix_articles_status", "workspace_id", "status", "id"),
)

# --- The settings page ---------------------------------------------------------------

# Failed org-admin logins, one row per failure and subject (a hashed e-mail or client
# address), kept for the throttle's window. Shared by every process through the database.
login_failures = Table(
    "login_failures",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("subject", String(64), nullable=False),
    Column("failed_at", UTCDateTime, nullable=False),
    Index("ix_login_failures_subject", "subject", "failed_at"),
)

# Live settings-page logins, one row per seat a login covers (one e-mail may administer
# several workspaces). The cookie carries a random session id; only its SHA-256 is stored,
# so a copy of this table opens no session. Deleting the row ends the session at once, in
# every process: logging out, a password change, removing the person (the cascade).
org_admin_sessions = Table(
    "org_admin_sessions",
    metadata,
    Column("workspace_id", ID, ForeignKey("workspaces.id"), nullable=False),
    Column("session_hash", String(64), nullable=False),
    Column("admin_id", ID, nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    Column("expires_at", UTCDateTime, nullable=False),
    PrimaryKeyConstraint("workspace_id", "session_hash"),
    ForeignKeyConstraint(
        ["workspace_id", "admin_id"],
        ["org_admins.workspace_id", "org_admins.id"],
        ondelete="CASCADE",
    ),
    Index("ix_org_admin_sessions_admin", "workspace_id", "admin_id"),
)

# Invitation links (docs/settings-page.md): one lets a member choose their password, once,
# within 7 days. The link carries the workspace id and a random secret; only the secret's
# SHA-256 is stored, so a copy of this table sets no password. A newer link of the same
# member replaces the unused ones; removing the member removes them (the cascade).
member_invitations = Table(
    "member_invitations",
    metadata,
    Column("workspace_id", ID, ForeignKey("workspaces.id"), nullable=False),
    Column("token_hash", String(64), nullable=False),
    Column("member_id", ID, nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    Column("expires_at", UTCDateTime, nullable=False),
    Column("used_at", UTCDateTime, nullable=True),
    PrimaryKeyConstraint("workspace_id", "token_hash"),
    ForeignKeyConstraint(
        ["workspace_id", "member_id"],
        ["org_admins.workspace_id", "org_admins.id"],
        ondelete="CASCADE",
    ),
    Index("ix_member_invitations_member", "workspace_id", "member_id"),
)

# One-time form tokens already used: a refreshed "Create key" form must not mint a second key.
form_submissions = Table(
    "form_submissions",
    metadata,
    *_tenant_columns(),
    Column("created_at", UTCDateTime, nullable=False),
    PrimaryKeyConstraint("workspace_id", "id"),
)

# Secrets the service generates for itself (the session-signing key on PostgreSQL), so that
# every process agrees on them.
service_secrets = Table(
    "service_secrets",
    metadata,
    Column("name", String(50), primary_key=True),
    Column("value", String(200), nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
)

# createIssue requests already answered, by the client's idempotency key: a retry with the
# same key and input gets the same issue instead of a second one. Kept for a day.
idempotency_keys = Table(
    "idempotency_keys",
    metadata,
    Column("workspace_id", ID, ForeignKey("workspaces.id"), nullable=False),
    Column("operation", String(40), nullable=False),
    Column("key", String(255), nullable=False),
    Column("request_hash", String(64), nullable=False),
    Column("result_id", ID, nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    PrimaryKeyConstraint("workspace_id", "operation", "key"),
)

# --- Events and webhooks (docs/webhooks.md) -----------------------------------------

# The event log, written in the transaction of the change (an outbox). `sequence` is the
# workspace's gap-free counter (workspaces.last_event_sequence); `actor` and `data` are the
# JSON of the API's event shape.
events = Table(
    "events",
    metadata,
    Column("workspace_id", ID, ForeignKey("workspaces.id"), nullable=False),
    Column("sequence", Integer, nullable=False),
    Column("id", ID, nullable=False),
    Column("type", String(50), nullable=False),
    Column("api_version", String(10), nullable=False),
    Column("actor", JSON, nullable=False),
    Column("data", JSON, nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    PrimaryKeyConstraint("workspace_id", "sequence"),
    UniqueConstraint("workspace_id", "id"),
    # Retention deletes by age across workspaces.
    Index("ix_events_created_at", "created_at"),
)

# Where a workspace's events are sent. The signing secret is sealed under the server key
# (auth/secret_box.py), never stored in clear; during a rotation window the previous one
# still signs too. `event_types`: space-separated, empty for all.
webhook_endpoints = Table(
    "webhook_endpoints",
    metadata,
    *_tenant_columns(),
    Column("url", String(2048), nullable=False),
    Column("description", String(500), nullable=False, server_default=""),
    Column("event_types", Text, nullable=False, server_default=""),
    Column("enabled", Boolean, nullable=False),
    Column("disabled_reason", String(20)),
    Column("secret_sealed", Text, nullable=False),
    Column("secret_prefix", String(16), nullable=False),
    Column("previous_secret_sealed", Text),
    Column("previous_secret_expires_at", UTCDateTime),
    # For the "no success for 5 days while deliveries fail" rule.
    Column("last_success_at", UTCDateTime),
    Column("failing_since", UTCDateTime),
    Column("created_at", UTCDateTime, nullable=False),
    Column("updated_at", UTCDateTime, nullable=False),
    PrimaryKeyConstraint("workspace_id", "id"),
)

# One event on its way to one endpoint: attempts, their outcome and the next one. A
# dispatcher takes a due delivery by setting `lease_until`; one whose lease ran out (its
# dispatcher died mid-attempt) is due again. `payload` holds the body of a test delivery,
# whose event is not in the log; other deliveries read their event's row.
webhook_deliveries = Table(
    "webhook_deliveries",
    metadata,
    *_tenant_columns(),
    Column("endpoint_id", ID, nullable=False),
    Column("event_id", ID, nullable=False),
    Column("event_type", String(50), nullable=False),
    Column("payload", JSON),
    Column("status", String(20), nullable=False),
    Column("attempts", Integer, nullable=False, server_default="0"),
    Column("next_attempt_at", UTCDateTime, nullable=False),
    Column("lease_until", UTCDateTime),
    Column("last_attempt_at", UTCDateTime),
    Column("last_response_status", Integer),
    Column("last_error", String(500)),
    Column("duration_ms", Integer),
    Column("created_at", UTCDateTime, nullable=False),
    PrimaryKeyConstraint("workspace_id", "id"),
    ForeignKeyConstraint(
        ["workspace_id", "endpoint_id"],
        ["webhook_endpoints.workspace_id", "webhook_endpoints.id"],
        ondelete="CASCADE",
    ),
    Index("ix_webhook_deliveries_endpoint", "workspace_id", "endpoint_id", "id"),
    # The dispatcher's queue: only pending deliveries, by when they are due.
    Index(
        "ix_webhook_deliveries_due",
        "next_attempt_at",
        postgresql_where=text("status = 'pending'"),
        sqlite_where=text("status = 'pending'"),
    ),
)


# A workspace's e-mail addresses (docs/email.md; `mbx_` ids). An address belongs to one
# workspace: mail is routed by it before anyone knows the workspace, as a key is found by
# its hash; not a unique constraint (a distributed PostgreSQL enforces only those holding
# workspace_id), the creating transaction checks it under an advisory lock instead.
mailboxes = Table(
    "mailboxes",
    metadata,
    *_tenant_columns(),
    # Lowercase.
    Column("address", String(254), nullable=False),
    Column("name", String(200), nullable=False, server_default=""),
    Column("acknowledge", Boolean, nullable=False),
    # The IMAP URL without its password, and the whole URL sealed under the server key.
    Column("imap_url_shown", String(2048)),
    Column("imap_url_sealed", Text),
    # Where IMAP polling got to (imap/checkpoints.py): the last UID taken under a
    # UIDVALIDITY, for the shown URL it was taken from (another URL starts over).
    Column("imap_checkpoint_of", String(2048)),
    Column("imap_uid_validity", BigInteger),
    Column("imap_last_uid", BigInteger),
    # Until when one dispatcher polls the mailbox (the others leave it be meanwhile).
    Column("imap_lease_until", UTCDateTime),
    # SHA-256 of the `mbt_` inbound token; the token itself is never stored.
    Column("token_hash", String(64), nullable=False),
    Column("token_prefix", String(16), nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    Column("updated_at", UTCDateTime, nullable=False),
    PrimaryKeyConstraint("workspace_id", "id"),
    Index("ix_mailboxes_address", "address"),
    Index("ix_mailboxes_token_hash", "token_hash"),
)

# Who may have mailboxes on a mail domain, an organisation's (docs/email.md, "Several
# workspaces"): the workspace whose mailbox was first there, until its last one goes
# (`granted` false), or the one the operator granted it to (`granted`); `held_by` null:
# shared, as a public provider's domain, one workspace per address. Without it, one
# workspace could take an unused address on another's domain and receive or send that
# workspace's mail. Not a tenant table: a distributed PostgreSQL keeps it as a reference
# table, on every node, so no foreign key to the workspaces.
mail_domains = Table(
    "mail_domains",
    metadata,
    # Lowercase: the registrable part of an address's domain (`acme.co.uk`).
    Column("domain", String(253), nullable=False),
    Column("held_by", ID),
    Column("granted", Boolean, nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    Column("updated_at", UTCDateTime, nullable=False),
    PrimaryKeyConstraint("domain"),
)

# Every message that came in through a door, kept raw, whatever became of it: `status`
# processed (it made or joined an issue), ignored (a duplicate or a loop the guard broke)
# or parked (it could not be read; kept for a person to look at). `message_key` is its
# Message-ID (or a digest of its bytes when it has none): one mailbox processes a key once.
inbound_emails = Table(
    "inbound_emails",
    metadata,
    *_tenant_columns(),
    Column("mailbox_id", ID, nullable=False),
    Column("door", String(10), nullable=False),
    Column("message_key", String(255), nullable=False),
    Column("sender", String(254)),
    Column("subject", String(255)),
    Column("size_bytes", Integer, nullable=False),
    Column("raw", LargeBinary, nullable=False),
    # Sent by a machine (RFC 3834's signs): never answered, at most one issue an hour.
    Column("automatic", Boolean, nullable=False),
    Column("status", String(20), nullable=False),
    Column("reason", String(500)),
    Column("issue_id", ID),
    Column("message_id", ID),
    Column("received_at", UTCDateTime, nullable=False),
    PrimaryKeyConstraint("workspace_id", "id"),
    ForeignKeyConstraint(
        ["workspace_id", "mailbox_id"],
        ["mailboxes.workspace_id", "mailboxes.id"],
    ),
    UniqueConstraint("workspace_id", "mailbox_id", "message_key"),
    # The loop guard: what a sender sent lately.
    Index("ix_inbound_emails_sender", "workspace_id", "sender", "received_at"),
    # A mailbox's parked mail, for Settings → Email, whatever else it took.
    Index(
        "ix_inbound_emails_parked",
        "workspace_id",
        "mailbox_id",
        "received_at",
        sqlite_where=text("status = 'parked'"),
        postgresql_where=text("status = 'parked'"),
    ),
)

# The e-mail side of a message (`Message.email`): the Message-ID it carries, so that
# answers thread by In-Reply-To and References; for mail received, the text before the
# quoted history was trimmed and the sanitised HTML; for mail sent (outbound, later),
# its status and error. `id` is the message's.
message_emails = Table(
    "message_emails",
    metadata,
    *_tenant_columns(),
    Column("mailbox_id", ID),
    Column("direction", String(10), nullable=False),
    Column("message_key", String(255), nullable=False),
    # received (inbound); queued | sent | failed (outbound).
    Column("status", String(20), nullable=False),
    Column("original_text", Text),
    Column("html", Text),
    Column("error", Text),
    Column("created_at", UTCDateTime, nullable=False),
    PrimaryKeyConstraint("workspace_id", "id"),
    ForeignKeyConstraint(["workspace_id", "id"], ["messages.workspace_id", "messages.id"]),
    Index("ix_message_emails_key", "workspace_id", "message_key"),
)

# Mail waiting for the dispatcher role, or sent by it (docs/email.md, "Sending"): a reply
# written in the reply's own transaction, or an acknowledgement of a new issue from mail.
# Taken, retried and leased like a webhook delivery; `message_key` is the Message-ID the
# mail carries, `answers` the Message-ID it answers (an acknowledgement's).
email_outbox = Table(
    "email_outbox",
    metadata,
    *_tenant_columns(),
    # reply | acknowledgement
    Column("kind", String(20), nullable=False),
    Column("mailbox_id", ID, nullable=False),
    Column("issue_id", ID, nullable=False),
    Column("message_id", ID),
    Column("recipient", String(254), nullable=False),
    Column("message_key", String(255), nullable=False),
    Column("answers", String(255)),
    # pending | sent | failed
    Column("status", String(20), nullable=False),
    Column("attempts", Integer, nullable=False, server_default="0"),
    Column("next_attempt_at", UTCDateTime, nullable=False),
    Column("lease_until", UTCDateTime),
    Column("last_attempt_at", UTCDateTime),
    Column("last_error", String(500)),
    Column("created_at", UTCDateTime, nullable=False),
    PrimaryKeyConstraint("workspace_id", "id"),
    ForeignKeyConstraint(
        ["workspace_id", "mailbox_id"],
        ["mailboxes.workspace_id", "mailboxes.id"],
        ondelete="CASCADE",
    ),
    Index(
        "ix_email_outbox_due",
        "next_attempt_at",
        postgresql_where=text("status = 'pending'"),
        sqlite_where=text("status = 'pending'"),
    ),
)
