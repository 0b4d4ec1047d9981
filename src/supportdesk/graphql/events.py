"""Event: the change feed (docs/webhooks.md). The same JSON as a webhook body."""

from __future__ import annotations

from datetime import datetime
from typing import cast

import strawberry
from strawberry.scalars import JSON

from supportdesk.domain import events
from supportdesk.domain.errors import InvalidArgument
from supportdesk.domain.events import queries
from supportdesk.domain.pagination import PageRequest
from supportdesk.graphql.context import Info
from supportdesk.graphql.pagination import Connection, connection_of


@strawberry.type(description="Who made a change.")
class EventActor:
    type: str = strawberry.field(description="`machine_user`, `org_admin`, `member` or `system`.")
    id: strawberry.ID | None
    name: str | None


@strawberry.type(
    description="A change in the workspace. `sequence` is gap-free per workspace: a reader"
    " that sees 41 then 43 missed 42 and can fetch it with `sinceSequence: 41`."
)
class Event:
    id: strawberry.ID
    type: str
    sequence: int
    created_at: datetime
    api_version: str
    workspace_id: strawberry.ID
    actor: EventActor
    data: JSON = strawberry.field(
        description="The objects after the change, in the API's field names; for `*.updated`"
        " also `changes: {field: {from, to}}`. A contact or member in it shows only what"
        " the key may read of them: `id` of a contact without `contacts:read`, `id` and"
        " `name` of a member without `members:read`."
    )

    @classmethod
    def seen_by(cls, event: events.Event, scopes: frozenset[str]) -> Event:
        """The event as a key holding `scopes` may see it: every way into the log shows
        people under the same rule as the API's objects."""
        return cls.of(events.as_seen_by(event, scopes))

    @classmethod
    def of(cls, event: events.Event) -> Event:
        """An event already as the key may see it (a live feed's are)."""
        actor = event.actor
        return cls(
            id=strawberry.ID(event.id),
            type=event.type,
            sequence=event.sequence,
            created_at=event.created_at,
            api_version=event.api_version,
            workspace_id=strawberry.ID(event.workspace_id),
            actor=EventActor(
                type=actor["type"],
                id=strawberry.ID(actor["id"]) if actor.get("id") else None,
                name=actor.get("name"),
            ),
            data=cast(JSON, event.data),
        )


@strawberry.input
class EventFilter:
    types: list[str] | None = strawberry.field(
        default=None, description="Only these types, e.g. `issue.created`."
    )
    since_sequence: int | None = strawberry.field(
        default=None,
        description="Only events after this sequence (the last one you saw). Older than"
        " retention answers BAD_USER_INPUT with `extensions.oldestSequence`.",
    )


def _types(info: Info, wanted: list[str] | None) -> tuple[str, ...]:
    """The types asked for that this key may read: a key sees the events of the objects
    it may read."""
    readable = events.readable_types(info.context.principal.scopes)
    if wanted is None:
        return readable
    unknown = events.unknown_types(wanted)
    if unknown:
        raise InvalidArgument(f"Unknown event types: {', '.join(unknown)}.")
    return tuple(kind for kind in readable if kind in wanted)


@strawberry.type
class EventQueries:
    @strawberry.field(
        description="The workspace's events, oldest first; only the types whose objects this"
        " key may read. Kept 30 days."
    )
    async def events(
        self,
        info: Info,
        first: int | None = None,
        after: str | None = None,
        filter: EventFilter | None = None,
    ) -> Connection[Event] | None:
        context = info.context
        request = PageRequest.of(first, after, context.cursors, "Event")
        types = _types(info, filter.types if filter else None)
        since = filter.since_sequence if filter else None
        if since is not None and since < 0:
            raise InvalidArgument("`sinceSequence` must be 0 or more.")

        page = await queries.list_events(context.db, context.workspace_id, request, types, since)
        scopes = context.principal.scopes
        return connection_of(
            context.cursors,
            page,
            [Event.seen_by(event, scopes) for event in page.items],
            lambda: queries.count_events(context.db, context.workspace_id, types, since),
            cursor_key=queries.cursor_key,
        )
