"""WebhookEndpoint and WebhookDelivery: types, queries, mutations (docs/webhooks.md)."""

from __future__ import annotations

from datetime import datetime

import strawberry

from supportdesk.domain.changes import KEEP
from supportdesk.domain.errors import InvalidArgument
from supportdesk.domain.events import read_scope, readable_types
from supportdesk.domain.pagination import PageRequest
from supportdesk.domain.webhooks import deliveries, endpoints, models, queries
from supportdesk.domain.webhooks.setup import WebhookSetup
from supportdesk.graphql.context import Info
from supportdesk.graphql.errors import MutationError, forbidden, mutate
from supportdesk.graphql.events import Event
from supportdesk.graphql.node import Node
from supportdesk.graphql.pagination import Connection, connection_of


def _readable(info: Info) -> frozenset[str]:
    """The event types the key may read: an endpoint it sets up or resends to stays within."""
    return frozenset(readable_types(info.context.principal.scopes))


def _setup(info: Info) -> WebhookSetup:
    setup = info.context.webhooks
    assert setup is not None, "the app sets up webhooks for every request"
    return setup


@strawberry.type(description="One event on its way to one endpoint.")
class WebhookDelivery(Node):
    event_id: strawberry.ID = strawberry.field(description="The `webhook-id` of every attempt.")
    event_type: str = strawberry.field(description="`webhook.test` for a test delivery.")
    status: str = strawberry.field(description="`pending`, `succeeded` or `failed`.")
    attempts: int
    last_attempt_at: datetime | None
    next_attempt_at: datetime | None = strawberry.field(
        description="When the next attempt leaves; null once the delivery is finished."
    )
    last_response_status: int | None
    last_error: str | None
    duration_ms: int | None = strawberry.field(description="Of the last attempt.")
    created_at: datetime
    delivery: strawberry.Private[models.WebhookDelivery]

    @strawberry.field(
        description="The event sent, from the log: null for a test delivery (not in the log)"
        " and once retention removed it; FORBIDDEN when the key may not read its type."
    )
    async def event(self, info: Info) -> Event | None:
        if self.delivery.payload is not None:
            return None
        # webhooks:manage shows deliveries, not what they carry: an event's body is the
        # events feed's, under its scopes (docs/webhooks.md).
        needed = read_scope(self.delivery.event_type)
        if needed not in info.context.principal.scopes:
            raise forbidden(frozenset({needed}), info.context.principal.is_legacy)
        found = await info.context.loaders.event.load(self.delivery.event_id)
        return Event.seen_by(found, info.context.principal.scopes) if found else None

    @classmethod
    def of(cls, delivery: models.WebhookDelivery) -> WebhookDelivery:
        return cls(
            id=strawberry.ID(delivery.id),
            event_id=strawberry.ID(delivery.event_id),
            event_type=delivery.event_type,
            status=delivery.status,
            attempts=delivery.attempts,
            last_attempt_at=delivery.last_attempt_at,
            next_attempt_at=delivery.next_attempt_at,
            last_response_status=delivery.last_response_status,
            last_error=delivery.last_error,
            duration_ms=delivery.duration_ms,
            created_at=delivery.created_at,
            delivery=delivery,
        )


@strawberry.input
class WebhookDeliveryFilter:
    status: str | None = strawberry.field(
        default=None, description="`pending`, `succeeded` or `failed`."
    )


@strawberry.type(description="Where the workspace's events are sent, signed.")
class WebhookEndpoint(Node):
    url: str
    description: str
    event_types: list[str] = strawberry.field(description="Empty: every type.")
    enabled: bool
    status: str = strawberry.field(description="`active` or `disabled`.")
    disabled_reason: str | None = strawberry.field(
        description="`manual`, `gone` (it answered 410) or `failing` (no success for 5 days)."
    )
    secret_prefix: str = strawberry.field(description="The first 12 characters of the secret.")
    created_at: datetime
    updated_at: datetime

    @strawberry.field(description="Deliveries to this endpoint, newest first.")
    async def deliveries(
        self,
        info: Info,
        first: int | None = None,
        after: str | None = None,
        filter: WebhookDeliveryFilter | None = None,
    ) -> Connection[WebhookDelivery] | None:
        context = info.context
        status = filter.status if filter else None
        if status is not None and status not in deliveries.STATUSES:
            raise InvalidArgument(f"`status` is one of {', '.join(deliveries.STATUSES)}.")
        request = PageRequest.of(first, after, context.cursors, "WebhookDelivery")
        page = await context.loaders.deliveries_of_endpoint.load((str(self.id), request, status))
        return connection_of(
            context.cursors,
            page,
            [WebhookDelivery.of(delivery) for delivery in page.items],
            lambda: context.loaders.delivery_count_of_endpoint.load((str(self.id), status)),
        )

    @classmethod
    def of(cls, endpoint: models.WebhookEndpoint) -> WebhookEndpoint:
        return cls(
            id=strawberry.ID(endpoint.id),
            url=endpoint.url,
            description=endpoint.description,
            event_types=list(endpoint.event_types),
            enabled=endpoint.enabled,
            status=endpoint.status,
            disabled_reason=endpoint.disabled_reason,
            secret_prefix=endpoint.secret_prefix,
            created_at=endpoint.created_at,
            updated_at=endpoint.updated_at,
        )


@strawberry.input
class CreateWebhookEndpointInput:
    url: str | None = strawberry.field(default=None, description="Required: https://…")
    description: str | None = None
    event_types: list[str] | None = strawberry.field(
        default=None, description="Empty or absent: every type."
    )
    enabled: bool | None = strawberry.field(default=None, description="Default true.")


@strawberry.input
class UpdateWebhookEndpointInput:
    id: strawberry.ID
    url: str | None = None
    description: str | None = strawberry.UNSET
    event_types: list[str] | None = None
    enabled: bool | None = None


@strawberry.input
class RotateWebhookSecretInput:
    id: strawberry.ID
    keep_previous_for_seconds: int | None = strawberry.field(
        default=None,
        description="How long deliveries also carry a signature made with the previous"
        " secret: 0 to 604800, default 86400.",
    )


@strawberry.input
class RedeliverWebhookEventInput:
    endpoint_id: strawberry.ID
    event_id: strawberry.ID


@strawberry.input
class ReplayWebhookEventsInput:
    endpoint_id: strawberry.ID
    from_sequence: int
    to_sequence: int = strawberry.field(description="At most 1,000 events after fromSequence.")


@strawberry.type
class WebhookEndpointSecretPayload:
    webhook_endpoint: WebhookEndpoint | None = None
    secret: str | None = strawberry.field(
        default=None, description="The signing secret. Returned once, here."
    )
    error: MutationError | None = None


@strawberry.type
class CreateWebhookEndpointPayload(WebhookEndpointSecretPayload):
    pass


@strawberry.type
class RotateWebhookSecretPayload(WebhookEndpointSecretPayload):
    pass


@strawberry.type
class UpdateWebhookEndpointPayload:
    webhook_endpoint: WebhookEndpoint | None = None
    error: MutationError | None = None


@strawberry.type
class DeleteWebhookEndpointPayload:
    webhook_endpoint: WebhookEndpoint | None = strawberry.field(
        default=None, description="The endpoint as it was."
    )
    error: MutationError | None = None


@strawberry.type
class WebhookDeliveryPayload:
    delivery: WebhookDelivery | None = None
    error: MutationError | None = None


@strawberry.type
class SendTestWebhookPayload(WebhookDeliveryPayload):
    pass


@strawberry.type
class RedeliverWebhookEventPayload(WebhookDeliveryPayload):
    pass


@strawberry.type
class ReplayWebhookEventsPayload:
    count: int | None = strawberry.field(default=None, description="Deliveries queued.")
    error: MutationError | None = None


@strawberry.type
class WebhookQueries:
    @strawberry.field(description="The workspace's webhook endpoints, oldest first.")
    async def webhook_endpoints(
        self, info: Info, first: int | None = None, after: str | None = None
    ) -> Connection[WebhookEndpoint] | None:
        context = info.context
        request = PageRequest.of(first, after, context.cursors, "WebhookEndpoint")
        page = await queries.list_endpoints(context.db, context.workspace_id, request)
        return connection_of(
            context.cursors,
            page,
            [WebhookEndpoint.of(endpoint) for endpoint in page.items],
            lambda: queries.count_endpoints(context.db, context.workspace_id),
        )


@strawberry.type
class WebhookMutations:
    @strawberry.mutation(
        description="Add an endpoint; its signing secret is in the payload, once. It takes only"
        " event types the key may read (SCOPE_ESCALATION otherwise)."
    )
    async def create_webhook_endpoint(
        self, info: Info, input: CreateWebhookEndpointInput
    ) -> CreateWebhookEndpointPayload | None:
        context = info.context
        setup = _setup(info)

        async def action() -> dict[str, object]:
            made = await endpoints.create_endpoint(
                context.db,
                context.actor,
                context.workspace_id,
                await setup.box(),
                setup.policy,
                url=input.url,
                description=input.description,
                event_types=input.event_types,
                enabled=input.enabled,
                readable=_readable(info),
            )
            return {"webhook_endpoint": WebhookEndpoint.of(made.endpoint), "secret": made.secret}

        return await mutate(CreateWebhookEndpointPayload, action)

    @strawberry.mutation(
        description="Change an endpoint's URL, description, types or switch. A new URL or new"
        " types need every type it then takes to be readable by the key (SCOPE_ESCALATION)."
    )
    async def update_webhook_endpoint(
        self, info: Info, input: UpdateWebhookEndpointInput
    ) -> UpdateWebhookEndpointPayload | None:
        context = info.context
        setup = _setup(info)

        async def action() -> dict[str, object]:
            changed = await endpoints.update_endpoint(
                context.db,
                context.actor,
                context.workspace_id,
                str(input.id),
                setup.policy,
                url=input.url,
                description=KEEP if input.description is strawberry.UNSET else input.description,
                event_types=input.event_types,
                enabled=input.enabled,
                readable=_readable(info),
            )
            return {"webhook_endpoint": WebhookEndpoint.of(changed)}

        return await mutate(UpdateWebhookEndpointPayload, action)

    @strawberry.mutation(description="Remove an endpoint; its pending deliveries are not sent.")
    async def delete_webhook_endpoint(
        self, info: Info, id: strawberry.ID
    ) -> DeleteWebhookEndpointPayload | None:
        context = info.context

        async def action() -> dict[str, object]:
            gone = await endpoints.delete_endpoint(
                context.db, context.actor, context.workspace_id, str(id)
            )
            return {"webhook_endpoint": WebhookEndpoint.of(gone)}

        return await mutate(DeleteWebhookEndpointPayload, action)

    @strawberry.mutation(description="A new signing secret, in the payload once.")
    async def rotate_webhook_secret(
        self, info: Info, input: RotateWebhookSecretInput
    ) -> RotateWebhookSecretPayload | None:
        context = info.context
        setup = _setup(info)

        async def action() -> dict[str, object]:
            rotated = await endpoints.rotate_secret(
                context.db,
                context.actor,
                context.workspace_id,
                str(input.id),
                await setup.box(),
                input.keep_previous_for_seconds,
            )
            return {
                "webhook_endpoint": WebhookEndpoint.of(rotated.endpoint),
                "secret": rotated.secret,
            }

        return await mutate(RotateWebhookSecretPayload, action)

    @strawberry.mutation(description="Send a `webhook.test` event to this endpoint alone.")
    async def send_test_webhook(
        self, info: Info, id: strawberry.ID
    ) -> SendTestWebhookPayload | None:
        context = info.context

        async def action() -> dict[str, object]:
            sent = await deliveries.send_test(
                context.db, context.actor, context.workspace_id, str(id)
            )
            return {"delivery": WebhookDelivery.of(sent)}

        return await mutate(SendTestWebhookPayload, action)

    @strawberry.mutation(
        description="Send one event again, with the same event id (whatever types the endpoint"
        " takes); the key must be able to read it (SCOPE_ESCALATION)."
    )
    async def redeliver_webhook_event(
        self, info: Info, input: RedeliverWebhookEventInput
    ) -> RedeliverWebhookEventPayload | None:
        context = info.context

        async def action() -> dict[str, object]:
            sent = await deliveries.redeliver(
                context.db,
                context.workspace_id,
                str(input.endpoint_id),
                str(input.event_id),
                _readable(info),
            )
            return {"delivery": WebhookDelivery.of(sent)}

        return await mutate(RedeliverWebhookEventPayload, action)

    @strawberry.mutation(
        description="Send the events of a range of sequences again (both ends included; those"
        " the endpoint subscribes to), with their own ids. The key must be able to read every"
        " type the endpoint takes (SCOPE_ESCALATION)."
    )
    async def replay_webhook_events(
        self, info: Info, input: ReplayWebhookEventsInput
    ) -> ReplayWebhookEventsPayload | None:
        context = info.context

        async def action() -> dict[str, object]:
            count = await deliveries.replay(
                context.db,
                context.workspace_id,
                str(input.endpoint_id),
                input.from_sequence,
                input.to_sequence,
                _readable(info),
            )
            return {"count": count}

        return await mutate(ReplayWebhookEventsPayload, action)
