"""The permission table: every root field, every relation that leads to another resource,
and every REST operation, mapped to the scopes any one of which allows it (CONTRACT
sections 2 and 13).

Deny by default: the GraphQL schema refuses to start when a root field is missing here,
and a test fails when a relation to another resource is.
"""

from __future__ import annotations

from supportdesk.auth.principal import Principal

# No scope needed, but a legacy key is refused (CONTRACT: legacy keys call createIssue only).
ANY_STANDARD_KEY: frozenset[str] = frozenset()


def _any(*scopes: str) -> frozenset[str]:
    return frozenset(scopes)


PERMISSIONS: dict[str, frozenset[str]] = {
    # Keys, principals, audit
    "Query.apiInfo": ANY_STANDARD_KEY,
    "Query.machineUsers": _any("machine_users:manage"),
    "Query.apiKeys": _any("api_keys:manage"),
    "Query.auditEvents": _any("audit:read"),
    "Mutation.createMachineUser": _any("machine_users:manage"),
    "Mutation.updateMachineUser": _any("machine_users:manage"),
    "Mutation.createApiKey": _any("api_keys:manage"),
    "Mutation.revokeApiKey": _any("api_keys:manage"),
    "MachineUser.apiKeys": _any("api_keys:manage"),
    "ApiKey.machineUser": _any("api_keys:manage", "machine_users:manage"),
    # The change feed: any scope that reads some event's object; each event is then
    # filtered by its own (domain/events/catalogue.py).
    "Query.events": _any(
        "issues:read",
        "contacts:read",
        "accounts:read",
        "articles:read",
        "machine_users:manage",
        "api_keys:manage",
        "webhooks:manage",
        "members:read",
    ),
    # Webhook endpoints and their deliveries (CONTRACT section 11)
    "Query.webhookEndpoints": _any("webhooks:manage"),
    "Mutation.createWebhookEndpoint": _any("webhooks:manage"),
    "Mutation.updateWebhookEndpoint": _any("webhooks:manage"),
    "Mutation.deleteWebhookEndpoint": _any("webhooks:manage"),
    "Mutation.rotateWebhookSecret": _any("webhooks:manage"),
    "Mutation.sendTestWebhook": _any("webhooks:manage"),
    "Mutation.redeliverWebhookEvent": _any("webhooks:manage"),
    "Mutation.replayWebhookEvents": _any("webhooks:manage"),
    "WebhookEndpoint.deliveries": _any("webhooks:manage"),
    # Issues and their threads
    "Query.issue": _any("issues:read"),
    "Query.issueByNumber": _any("issues:read"),
    "Query.issues": _any("issues:read"),
    "Mutation.createIssue": _any("issues:create", "issues:write"),
    "Mutation.updateIssue": _any("issues:write"),
    "Mutation.updateIssues": _any("issues:write"),
    "Mutation.mergeIssue": _any("issues:write"),
    "Mutation.replyToIssue": _any("thread:reply"),
    "Mutation.addNote": _any("thread:reply"),
    "Message.author": _any("issues:read"),
    "Issue.messages": _any("issues:read"),
    "Issue.requester": _any("contacts:read"),
    "Issue.labels": _any("issues:read"),
    "Issue.mergedInto": _any("issues:read"),
    "Issue.assignee": _any("issues:read"),
    "Mutation.assignIssue": _any("issues:write"),
    # Members (CONTRACT section 12)
    "Query.members": _any("members:read"),
    "Mutation.createMember": _any("members:manage"),
    "Mutation.updateMember": _any("members:manage"),
    "Mutation.removeMember": _any("members:manage"),
    # Labels (CONTRACT section 12)
    "Query.labels": _any("issues:read"),
    "Mutation.createLabel": _any("issues:write"),
    "Mutation.updateLabel": _any("issues:write"),
    "Mutation.deleteLabel": _any("issues:write"),
    "Mutation.addLabels": _any("issues:write"),
    "Mutation.removeLabels": _any("issues:write"),
    # Contacts, accounts, articles
    "Query.contact": _any("contacts:read"),
    "Query.contactByEmail": _any("contacts:read"),
    "Query.contacts": _any("contacts:read"),
    "Query.account": _any("accounts:read"),
    "Query.accounts": _any("accounts:read"),
    "Query.article": _any("articles:read"),
    "Query.articles": _any("articles:read"),
    "Mutation.createContact": _any("contacts:write"),
    "Mutation.updateContact": _any("contacts:write"),
    "Mutation.createAccount": _any("accounts:write"),
    "Mutation.updateAccount": _any("accounts:write"),
    "Mutation.createArticle": _any("articles:write"),
    "Mutation.updateArticle": _any("articles:write"),
    "Mutation.publishArticle": _any("articles:write"),
    "Mutation.unpublishArticle": _any("articles:write"),
    "Contact.account": _any("accounts:read"),
    "Contact.issues": _any("issues:read"),
    "Account.contacts": _any("contacts:read"),
    "Account.issues": _any("issues:read"),
    # Relay: each type is checked against the scopes of its own single-object query.
    "Query.node": ANY_STANDARD_KEY,
    # The REST interface under /v1 (CONTRACT section 13): the scopes of the same operations.
    "REST.createIssue": _any("issues:create", "issues:write"),
    "REST.getIssue": _any("issues:read"),
}

# The scopes that allow reading one object of a type through `node(id)`.
NODE_PERMISSIONS: dict[str, frozenset[str]] = {
    "Issue": PERMISSIONS["Query.issue"],
    "Message": PERMISSIONS["Query.issue"],
    "Label": PERMISSIONS["Query.labels"],
    "Member": PERMISSIONS["Query.members"],
    "Contact": PERMISSIONS["Query.contact"],
    "Account": PERMISSIONS["Query.account"],
    "Article": PERMISSIONS["Query.article"],
    "MachineUser": PERMISSIONS["Query.machineUsers"],
    "ApiKey": PERMISSIONS["Query.apiKeys"],
    "AuditEvent": PERMISSIONS["Query.auditEvents"],
    "WebhookEndpoint": PERMISSIONS["Query.webhookEndpoints"],
    "WebhookDelivery": PERMISSIONS["Query.webhookEndpoints"],
}


def is_allowed(principal: Principal, required: frozenset[str]) -> bool:
    """Whether the principal may use a field guarded by `required`."""
    if required is ANY_STANDARD_KEY or not required:
        return not principal.is_legacy
    return principal.has_any(required)
