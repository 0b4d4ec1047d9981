"""The event types (docs/webhooks.md) and the scopes that let a key read each.

A key sees the events whose object it may read; the `events` field needs any one of
these scopes."""

from __future__ import annotations

# By the type's object: every `issue.*` event needs `issues:read`, and so on.
READ_SCOPE_BY_OBJECT: dict[str, str] = {
    "issue": "issues:read",
    "message": "issues:read",
    "label": "issues:read",
    "member": "members:read",
    "contact": "contacts:read",
    "account": "accounts:read",
    "article": "articles:read",
    "machine_user": "machine_users:manage",
    "api_key": "api_keys:manage",
    "webhook_endpoint": "webhooks:manage",
    "mailbox": "mailboxes:manage",
}

EVENT_TYPES: tuple[str, ...] = (
    "issue.created",
    "issue.updated",
    "issue.labels_changed",
    "issue.merged",
    "issue.assigned",
    "message.created",
    "message.email_failed",
    "label.created",
    "label.updated",
    "label.deleted",
    "member.created",
    "member.updated",
    "member.removed",
    "contact.created",
    "contact.updated",
    "account.created",
    "account.updated",
    "article.created",
    "article.updated",
    "article.published",
    "article.unpublished",
    "machine_user.created",
    "machine_user.updated",
    "api_key.created",
    "api_key.revoked",
    "webhook_endpoint.created",
    "webhook_endpoint.updated",
    "webhook_endpoint.deleted",
    "mailbox.created",
    "mailbox.updated",
    "mailbox.deleted",
)

# Sent by sendTestWebhook to one endpoint; never recorded in the log.
TEST_EVENT_TYPE = "webhook.test"


def read_scope(event_type: str) -> str:
    return READ_SCOPE_BY_OBJECT[event_type.split(".", 1)[0]]


# Any one of these lets a key ask for events at all.
EVENT_READ_SCOPES: frozenset[str] = frozenset(READ_SCOPE_BY_OBJECT.values())


def readable_types(scopes: frozenset[str] | set[str]) -> tuple[str, ...]:
    """The event types a key holding `scopes` may read."""
    return tuple(kind for kind in EVENT_TYPES if read_scope(kind) in scopes)


def unknown_types(types: list[str] | tuple[str, ...]) -> list[str]:
    return sorted({kind for kind in types if kind not in EVENT_TYPES})
