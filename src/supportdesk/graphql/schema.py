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
from supportdesk.domain import api_keys, audit, issues, members
from supportdesk.domain.webhooks import deliveries as webhook_deliveries
from supportdesk.domain.webhooks import queries as webhook_queries
from supportdesk.graphql import node_query
from supportdesk.graphql.accounts import Account, AccountMutations, AccountQueries
from supportdesk.graphql.api_info import ApiInfoQueries
from supportdesk.graphql.api_keys import ApiKey, ApiKeyMutations, ApiKeyQueries
from supportdesk.graphql.articles import Article, ArticleMutations, ArticleQueries
from supportdesk.graphql.audit import AuditEvent, AuditQueries
from supportdesk.graphql.contacts import Contact, ContactMutations, ContactQueries
from supportdesk.graphql.context import Context
from supportdesk.graphql.event_subscription import EventSubscriptions
from supportdesk.graphql.events import EventQueries
from supportdesk.graphql.issues import Issue, IssueMutations, IssueQueries, Message
from supportdesk.graphql.labels import Label, LabelMutations, LabelQueries
from supportdesk.graphql.machine_users import MachineUser, MachineUserMutations, MachineUserQueries
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
    node_query.NodeQueries,
):
    pass


@strawberry.type
class Mutation(
    IssueMutations,
    LabelMutations,
    MemberMutations,
    MachineUserMutations,
    ApiKeyMutations,
    ContactMutations,
    AccountMutations,
    ArticleMutations,
    WebhookMutations,
):
    pass


# Only the live events are a subscription (docs/events-stream.md).
@strawberry.type
class Subscription(EventSubscriptions):
    pass


async def _one(context: Context, get_many: Any, id: str) -> Any:
    """One object of the workspace through a domain reader of many (`get_x(db, ws, ids)`)."""
    found = await get_many(context.db, context.workspace_id, [id])
    return found.get(id)


@node_query.fetches("Issue")
async def _issue(context: Context, id: str) -> Issue | None:
    found = await context.loaders.issue.load(id)
    return Issue.of(found) if found else None


@node_query.fetches("Message")
async def _message(context: Context, id: str) -> Message | None:
    found = await _one(context, issues.get_messages, id)
    return Message.of(found) if found else None


@node_query.fetches("Label")
async def _label(context: Context, id: str) -> Label | None:
    found = await context.loaders.label.load(id)
    return Label.of(found) if found else None


@node_query.fetches("Member")
async def _member(context: Context, id: str) -> Member | None:
    found = await context.loaders.person.load(id)
    return Member.of(found) if isinstance(found, members.Member) else None


@node_query.fetches("Contact")
async def _contact(context: Context, id: str) -> Contact | None:
    found = await context.loaders.contact.load(id)
    return Contact.of(found) if found else None


@node_query.fetches("Account")
async def _account(context: Context, id: str) -> Account | None:
    found = await context.loaders.account.load(id)
    return Account.of(found) if found else None


@node_query.fetches("Article")
async def _article(context: Context, id: str) -> Article | None:
    found = await context.loaders.article.load(id)
    return Article.of(found) if found else None


@node_query.fetches("MachineUser")
async def _machine_user(context: Context, id: str) -> MachineUser | None:
    user = await context.loaders.machine_user.load(id)
    return MachineUser.of(user) if user else None


@node_query.fetches("ApiKey")
async def _api_key(context: Context, id: str) -> ApiKey | None:
    found = await _one(context, api_keys.get_api_keys, id)
    return ApiKey.of(found, context.now) if found else None


@node_query.fetches("AuditEvent")
async def _audit_event(context: Context, id: str) -> AuditEvent | None:
    found = await _one(context, audit.get_audit_events, id)
    return AuditEvent.of(found) if found else None


@node_query.fetches("WebhookEndpoint")
async def _webhook_endpoint(context: Context, id: str) -> WebhookEndpoint | None:
    found = await _one(context, webhook_queries.get_endpoints, id)
    return WebhookEndpoint.of(found) if found else None


@node_query.fetches("WebhookDelivery")
async def _webhook_delivery(context: Context, id: str) -> WebhookDelivery | None:
    found = await _one(context, webhook_deliveries.get_deliveries, id)
    return WebhookDelivery.of(found) if found else None


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
        ],
        config=StrawberryConfig(auto_camel_case=True, scalar_map={datetime: DateTime}),
    )
    refuse_unlisted_roots(schema._schema, PERMISSIONS)
    resolve_fields(schema, PERMISSIONS)
    return schema
