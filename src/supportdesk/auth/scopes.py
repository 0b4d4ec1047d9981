"""The scope catalogue and the presets of the settings page (docs/api.md)."""

from __future__ import annotations

from collections.abc import Iterable

SCOPES: dict[str, str] = {
    "issues:read": "Read issues and their messages",
    "issues:create": "Create issues, nothing else (the scope of legacy keys)",
    "issues:write": "Create issues and change their subject, status and priority",
    "thread:reply": "Reply to issues",
    "contacts:read": "Read contacts",
    "contacts:write": "Create and update contacts",
    "accounts:read": "Read accounts",
    "accounts:write": "Create and update accounts",
    "articles:read": "Read knowledge-base articles",
    "articles:write": "Create, update and publish articles",
    "machine_users:manage": "List, create and update machine users (admin)",
    "api_keys:manage": "List, create and revoke API keys (admin)",
    "audit:read": "Read the audit log (admin)",
    "webhooks:manage": "Manage webhook endpoints, their deliveries, redelivery and replay (admin)",
    "members:read": "Read the workspace's members",
    "members:manage": "Add, change and remove the workspace's members (admin)",
    "mailboxes:manage": "Manage e-mail mailboxes, their inbound tokens and settings (admin)",
}

ADMIN_SCOPES = frozenset(
    {
        "machine_users:manage",
        "api_keys:manage",
        "audit:read",
        "webhooks:manage",
        "members:manage",
        "mailboxes:manage",
    }
)
LEGACY_SCOPES = ("issues:create",)

PRESETS: dict[str, tuple[str, ...]] = {
    "full_access": tuple(sorted(SCOPES)),
    "read_only": (
        "accounts:read",
        "articles:read",
        "contacts:read",
        "issues:read",
        "members:read",
    ),
}


def normalise_scopes(scopes: Iterable[str]) -> tuple[str, ...]:
    """Sorted and de-duplicated, as scopes are stored and returned."""
    return tuple(sorted({scope.strip() for scope in scopes}))


def unknown_scopes(scopes: Iterable[str]) -> list[str]:
    return sorted({scope for scope in scopes if scope not in SCOPES})
