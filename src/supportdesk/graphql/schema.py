"""The schema, joined once from each area's queries and mutations; `resolution.py` then
installs each field's resolver and the guards of the permission table and of the
person rule."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import strawberry
from graphql import GraphQLError
from strawberry.schema.config import StrawberryConfig

from supportdesk.auth.permissions import PERMISSIONS
from supportdesk.domain import api_keys, audit, issues, mailboxes, members
from supportdesk.domain.webhooks import deliveries as webhook_deliveries
from supportdesk.domain.webhooks import queries as webhook_queries
from supportdesk.graphql import node_query
from supportdesk.graphql.accounts import Account, AccountMutations, AccountQueries
from supportdesk.graphql.api_info import ApiInfoQueries
from supportdesk.graphql.api_keys import ApiKey, ApiKeyMutations, ApiKeyQueries
from supportdesk.graphql.articles import Article, ArticleMutations, ArticleQueries
from supportdesk.graphql.attachments import AttachmentMutations
from supportdesk.graphql.audit import AuditEvent, AuditQueries
from supportdesk.graphql.contacts import Contact, ContactMutations, ContactQueries
from supportdesk.graphql.context import Context
from supportdesk.graphql.event_subscription import EventSubscriptions
from supportdesk.graphql.events import EventQueries
from supportdesk.graphql.issues import Issue, IssueMutations, IssueQueries, Message
from supportdesk.graphql.labels import Label, LabelMutations, LabelQueries
from supportdesk.graphql.machine_users import MachineUser, MachineUserMutations, MachineUserQueries
from supportdesk.graphql.mailboxes import Mailbox, MailboxMutations, MailboxQueries
from supportdesk.graphql.members import Member, MemberMutations, MemberQueries
from supportdesk.graphql.resolution import refuse_unlisted_roots, resolve_fields
from supportdesk.graphql.scalars import DateTime
from supportdesk.graphql.webhooks import (
    WebhookDelivery,
    WebhookEndpoint,
    WebhookMutations,
    WebhookQueries,
)


@strawberry.type
class Query(
    ApiInfoQueries,
    IssueQueries,
    LabelQueries,
    MemberQueries,
    MachineUserQueries,
    ApiKeyQueries,
    AuditQueries,
    ContactQueries,
    AccountQueries,
    ArticleQueries,
    EventQueries,
    WebhookQueries,
    MailboxQueries,
    node_query.NodeQueries,
):
    pass


@strawberry.type
class Mutation(
    IssueMutations,
    AttachmentMutations,
    LabelMutations,
    MemberMutations,
    MachineUserMutations,
    ApiKeyMutations,
    ContactMutations,
    AccountMutations,
    ArticleMutations,
    WebhookMutations,
    MailboxMutations,
):
    pass


# Only the live events are a subscription (docs/events-stream.md).
@strawberry.type
class Subscription(EventSubscriptions):
    pass


def _loaded(loader: str, make: Any) -> Any:
    """How `node(id)` loads a type through the request's loader of that name."""

    async def fetch(context: Context, id: str) -> Any:
        found = await getattr(context.loaders, loader).load(id)
        return make(found) if found else None

    return fetch


def _read(get_many: Any, make: Any) -> Any:
    """How `node(id)` loads a type through a domain reader of many (`get_x(db, ws, ids)`)."""

    async def fetch(context: Context, id: str) -> Any:
        found = (await get_many(context.db, context.workspace_id, [id])).get(id)
        return make(found, context) if found else None

    return fetch


async def _member(context: Context, id: str) -> Member | None:
    found = await context.loaders.person.load(id)
    return Member.of(found) if isinstance(found, members.Member) else None


node_query.FETCHERS.update(
    {
        "Issue": _loaded("issue", Issue.of),
        "Label": _loaded("label", Label.of),
        "Contact": _loaded("contact", Contact.of),
        "Account": _loaded("account", Account.of),
        "Article": _loaded("article", Article.of),
        "MachineUser": _loaded("machine_user", MachineUser.of),
        "Member": _member,
        "Message": _read(issues.get_messages, lambda found, _: Message.of(found)),
        "ApiKey": _read(api_keys.get_api_keys, lambda found, c: ApiKey.of(found, c.now)),
        "AuditEvent": _read(audit.get_audit_events, lambda found, _: AuditEvent.of(found)),
        "WebhookEndpoint": _read(
            webhook_queries.get_endpoints, lambda found, _: WebhookEndpoint.of(found)
        ),
        "WebhookDelivery": _read(
            webhook_deliveries.get_deliveries, lambda found, _: WebhookDelivery.of(found)
        ),
        "Mailbox": _read(mailboxes.get_mailboxes, lambda found, _: Mailbox.of(found)),
    }
)


class ServiceSchema(strawberry.Schema):
    """Strawberry's schema, which runs subscriptions (graphql/streams.py)."""

    def process_errors(self, errors: list[GraphQLError], execution_context: Any = None) -> None:
        # Not logged here: a stream's errors are shaped, and the unexpected logged in full
        # with the request's id, where each payload is answered (graphql/streams.py).
        pass


def build_schema() -> strawberry.Schema:
    schema = ServiceSchema(
        query=Query,
        mutation=Mutation,
        subscription=Subscription,
        types=[
            MachineUser,
            ApiKey,
            AuditEvent,
            Issue,
            Message,
            Label,
            Member,
            Contact,
            Account,
            Article,
            WebhookEndpoint,
            WebhookDelivery,
            Mailbox,
        ],
        config=StrawberryConfig(auto_camel_case=True, scalar_map={datetime: DateTime}),
    )
    refuse_unlisted_roots(schema._schema, PERMISSIONS)
    resolve_fields(schema, PERMISSIONS)
    return schema
