"""The objects of event `data`, in the API's own field names (docs/webhooks.md), and
the `changes` of an update."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from supportdesk.domain.clock import rfc3339
from supportdesk.domain.webhooks.models import shown_url

if TYPE_CHECKING:
    from supportdesk.domain.accounts.models import Account
    from supportdesk.domain.api_keys.service import ApiKey
    from supportdesk.domain.articles.models import Article
    from supportdesk.domain.attachments import Attachment
    from supportdesk.domain.contacts.service import Contact
    from supportdesk.domain.issues.models import Issue, Message
    from supportdesk.domain.labels.models import Label
    from supportdesk.domain.machine_users.service import MachineUser
    from supportdesk.domain.mailboxes.models import Mailbox
    from supportdesk.domain.members.models import Member
    from supportdesk.domain.webhooks.models import WebhookEndpoint

Snapshot = dict[str, Any]


def _moment(value: datetime | None) -> str | None:
    return rfc3339(value) if value is not None else None


def requester(contact_id: str, email: str, name: str | None) -> Snapshot:
    return {"id": contact_id, "email": email, "name": name}


def issue(value: Issue, requester_snapshot: Snapshot) -> Snapshot:
    return {
        "id": value.id,
        "ticketNumber": value.ticket_number,
        "subject": value.subject,
        "status": value.status,
        "priority": value.priority,
        "messageCount": value.message_count,
        "createdAt": rfc3339(value.created_at),
        "updatedAt": rfc3339(value.updated_at),
        "requester": requester_snapshot,
        "assignee": assignee(value.assignee_type, value.assignee_id),
    }


def assignee(kind: str | None, assignee_id: str | None) -> Snapshot | None:
    """Who works on an issue: `{"type": "member" | "machine_user", "id"}`, or None."""
    if kind is None or assignee_id is None:
        return None
    return {"type": kind, "id": assignee_id}


def member(value: Member) -> Snapshot:
    return {
        "id": value.id,
        "email": value.email,
        "name": value.name,
        "role": value.role,
        "createdAt": rfc3339(value.created_at),
    }


def message(value: Message, files: Sequence[Attachment] = ()) -> Snapshot:
    return {
        "id": value.id,
        "issueId": value.issue_id,
        "senderName": value.sender_name,
        "body": value.body,
        "createdAt": rfc3339(value.created_at),
        "visibility": value.visibility,
        "channel": value.channel,
        "attachments": [attachment(file) for file in files],
    }


def attachment(value: Attachment) -> Snapshot:
    """What a message's file is; its bytes are fetched with a key (docs/attachments.md)."""
    return {
        "id": value.id,
        "fileName": value.file_name,
        "sizeBytes": value.size_bytes,
        "contentType": value.content_type,
    }


def label(value: Label) -> Snapshot:
    return {
        "id": value.id,
        "name": value.name,
        "color": value.color,
        "description": value.description,
        "createdAt": rfc3339(value.created_at),
        "updatedAt": rfc3339(value.updated_at),
    }


def contact(value: Contact) -> Snapshot:
    return {
        "id": value.id,
        "email": value.email,
        "name": value.name,
        "accountId": value.account_id,
        "createdAt": rfc3339(value.created_at),
        "updatedAt": rfc3339(value.updated_at),
    }


def account(value: Account) -> Snapshot:
    return {
        "id": value.id,
        "name": value.name,
        "domain": value.domain,
        "createdAt": rfc3339(value.created_at),
        "updatedAt": rfc3339(value.updated_at),
    }


def article(value: Article) -> Snapshot:
    return {
        "id": value.id,
        "title": value.title,
        "body": value.body,
        "status": value.status,
        "createdAt": rfc3339(value.created_at),
        "updatedAt": rfc3339(value.updated_at),
        "publishedAt": _moment(value.published_at),
    }


def machine_user(value: MachineUser) -> Snapshot:
    return {
        "id": value.id,
        "name": value.name,
        "description": value.description,
        "managed": value.managed,
        "createdAt": rfc3339(value.created_at),
        "updatedAt": rfc3339(value.updated_at),
    }


def api_key(value: ApiKey, at: datetime) -> Snapshot:
    """Never the secret: only what `apiKeys` shows."""
    return {
        "id": value.id,
        "name": value.name,
        "keyPrefix": value.key_prefix,
        "scopes": list(value.scopes),
        "kind": value.kind,
        "machineUserId": value.machine_user_id,
        "status": value.status(at),
        "createdAt": rfc3339(value.created_at),
        "expiresAt": _moment(value.expires_at),
        "revokedAt": _moment(value.revoked_at),
    }


def webhook_endpoint(value: WebhookEndpoint) -> Snapshot:
    """Never the secret: only its prefix; the URL with its query masked (`shown_url`)."""
    return {
        "id": value.id,
        "url": shown_url(value.url),
        "description": value.description,
        "eventTypes": list(value.event_types),
        "enabled": value.enabled,
        "status": value.status,
        "disabledReason": value.disabled_reason,
        "secretPrefix": value.secret_prefix,
        "createdAt": rfc3339(value.created_at),
        "updatedAt": rfc3339(value.updated_at),
    }


def webhook_endpoint_changes(
    before: WebhookEndpoint, after: WebhookEndpoint
) -> dict[str, dict[str, Any]]:
    """The `changes` of an endpoint: a new URL is told even when only its masked query
    moved, so that the masked forms are alike."""
    found = changes(webhook_endpoint(before), webhook_endpoint(after))
    if before.url != after.url:
        found["url"] = {"from": shown_url(before.url), "to": shown_url(after.url)}
    return found


# Fields that move with every change and say nothing of their own.
_NOT_CHANGES = frozenset({"updatedAt"})


def changes(before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """`{field: {from, to}}` of the fields whose value differs."""
    return {
        name: {"from": before.get(name), "to": value}
        for name, value in after.items()
        if name not in _NOT_CHANGES and before.get(name) != value
    }


def mailbox(value: Mailbox) -> Snapshot:
    """Never the inbound token nor the IMAP password: only the token's prefix."""
    return {
        "id": value.id,
        "address": value.address,
        "name": value.name,
        "acknowledge": value.acknowledge,
        "imapUrl": value.imap_url,
        "tokenPrefix": value.token_prefix,
        "createdAt": rfc3339(value.created_at),
        "updatedAt": rfc3339(value.updated_at),
    }
