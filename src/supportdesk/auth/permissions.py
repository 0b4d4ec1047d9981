"""The permission table: every root field, every relation that leads to another resource,
and every REST operation, mapped to the scopes any one of which allows it (docs/api.md,
docs/rest-v1.md); and the rule for people, which holds wherever a person appears.

Deny by default: the GraphQL schema refuses to start when a root field is missing here,
and a test fails when a relation to another resource is. Every field of a person is the
rule's but those it names as anyone's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from supportdesk.auth.principal import Principal

# No scope needed, but a legacy key is refused (legacy keys call createIssue only).
ANY_STANDARD_KEY: frozenset[str] = frozenset()


def _any(*scopes: str) -> frozenset[str]:
    return frozenset(scopes)


# Who sends an attachment's bytes: whoever may ask for its upload URL.
PERMISSIONS_OF_UPLOADS = _any("issues:write", "thread:reply")
_EVENT_READERS = _any(
    "issues:read",
    "contacts:read",
    "accounts:read",
    "articles:read",
    "machine_users:manage",
    "api_keys:manage",
    "webhooks:manage",
    "members:read",
    "mailboxes:manage",
)

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
    "Query.events": _EVENT_READERS,
    "Subscription.events": _EVENT_READERS,
    # Webhook endpoints and their deliveries (docs/webhooks.md)
    "Query.webhookEndpoints": _any("webhooks:manage"),
    "Mutation.createWebhookEndpoint": _any("webhooks:manage"),
    "Mutation.updateWebhookEndpoint": _any("webhooks:manage"),
    "Mutation.deleteWebhookEndpoint": _any("webhooks:manage"),
    "Mutation.rotateWebhookSecret": _any("webhooks:manage"),
    "Mutation.sendTestWebhook": _any("webhooks:manage"),
    "Mutation.redeliverWebhookEvent": _any("webhooks:manage"),
    "Mutation.replayWebhookEvents": _any("webhooks:manage"),
    "WebhookEndpoint.deliveries": _any("webhooks:manage"),
    # E-mail mailboxes (docs/email.md)
    "Query.mailboxes": _any("mailboxes:manage"),
    "Mutation.createMailbox": _any("mailboxes:manage"),
    "Mutation.updateMailbox": _any("mailboxes:manage"),
    "Mutation.deleteMailbox": _any("mailboxes:manage"),
    "Mutation.rotateMailboxToken": _any("mailboxes:manage"),
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
    "Mutation.addCustomerMessage": _any("thread:reply"),
    "Message.author": _any("issues:read"),
    # Attachments (docs/attachments.md): whoever may write a message may upload its files.
    "Mutation.createAttachmentUpload": PERMISSIONS_OF_UPLOADS,
    "Message.attachments": _any("issues:read"),
    "Issue.messages": _any("issues:read"),
    "Issue.requester": _any("contacts:read"),
    "Issue.labels": _any("issues:read"),
    "Issue.mergedInto": _any("issues:read"),
    "Issue.assignee": _any("issues:read"),
    "Mutation.assignIssue": _any("issues:write"),
    # Members (docs/working-issues.md)
    "Query.members": _any("members:read"),
    "Mutation.createMember": _any("members:manage"),
    "Mutation.updateMember": _any("members:manage"),
    "Mutation.removeMember": _any("members:manage"),
    # Labels (docs/working-issues.md)
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
    # The REST interface under /v1 (docs/rest-v1.md): the scopes of the same operations.
    "REST.createIssue": _any("issues:create", "issues:write"),
    "REST.getIssue": _any("issues:read"),
    "REST.uploadAttachment": PERMISSIONS_OF_UPLOADS,
    "REST.downloadAttachment": _any("issues:read"),
    "REST.streamEvents": _EVENT_READERS,
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
    "Mailbox": PERMISSIONS["Query.mailboxes"],
}


@dataclass(frozen=True, slots=True)
class PersonRule:
    """Who a kind of person is, for any key that meets them; the rest for keys that may
    read that kind of person."""

    # The scopes any one of which shows every field.
    required: frozenset[str]
    # The GraphQL fields any key that reaches the person may read.
    anyones: frozenset[str]


# People (docs/security.md): a contact or a member reached through anything (an issue's
# assignee, a message's author, an event's data) shows its e-mail and the rest only to
# a key that may read contacts, or members, respectively. The same rule for every place
# a person appears, so that no relation of another resource hands them out.
PEOPLE: dict[str, PersonRule] = {
    "Contact": PersonRule(_any("contacts:read"), frozenset({"id"})),
    "Member": PersonRule(_any("members:read"), frozenset({"id", "name"})),
}


def is_allowed(principal: Principal, required: frozenset[str]) -> bool:
    """Whether the principal may use a field guarded by `required`."""
    if required is ANY_STANDARD_KEY or not required:
        return not principal.is_legacy
    return principal.has_any(required)


def person_scopes(type_name: str, field: str) -> frozenset[str] | None:
    """The scopes a field of a person needs: None for a field any key that reaches the
    person may read, and for every field of anything else."""
    rule = PEOPLE.get(type_name)
    if rule is None or field in rule.anyones:
        return None
    return rule.required


def guards_of(
    type_name: str, field: str, table: Mapping[str, frozenset[str]] = PERMISSIONS
) -> tuple[frozenset[str], ...]:
    """Every set of scopes `type_name.field` needs one of, in the order they are checked:
    the person rule's, then the table's (a contact's `account` needs both)."""
    found = (person_scopes(type_name, field), table.get(f"{type_name}.{field}"))
    return tuple(required for required in found if required is not None)


def refusal(principal: Principal, guards: tuple[frozenset[str], ...]) -> frozenset[str] | None:
    """The first of `guards` the principal does not meet; None when it meets them all."""
    for required in guards:
        if not is_allowed(principal, required):
            return required
    return None
