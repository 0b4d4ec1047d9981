"""AuditEvent: the log of changes to keys and machine users."""

from __future__ import annotations

from datetime import datetime
from typing import cast

import strawberry
from strawberry.scalars import JSON

from supportdesk.domain import audit
from supportdesk.domain.pagination import PageRequest
from supportdesk.graphql.context import Info
from supportdesk.graphql.node import Node
from supportdesk.graphql.pagination import Connection, connection_of


@strawberry.type(description="Who did what to which key or machine user, when, from where.")
class AuditEvent(Node):
    action: str
    actor_type: str = strawberry.field(
        description="`machine_user`, `org_admin`, `cli`, or `anonymous` (a login that failed)."
    )
    actor_id: strawberry.ID | None
    actor_label: str
    target_type: str
    target_id: strawberry.ID
    ip_address: str | None
    data: JSON
    created_at: datetime

    @classmethod
    def of(cls, event: audit.AuditEvent) -> AuditEvent:
        return cls(
            id=strawberry.ID(event.id),
            action=event.action,
            actor_type=event.actor_type,
            actor_id=strawberry.ID(event.actor_id) if event.actor_id else None,
            actor_label=event.actor_label,
            target_type=event.target_type,
            target_id=strawberry.ID(event.target_id),
            ip_address=event.ip_address,
            data=cast(JSON, event.data),
            created_at=event.created_at,
        )


@strawberry.type
class AuditQueries:
    @strawberry.field(description="The workspace's audit log, newest first.")
    async def audit_events(
        self, info: Info, first: int | None = None, after: str | None = None
    ) -> Connection[AuditEvent] | None:
        context = info.context
        request = PageRequest.of(first, after, info.context.cursors, "AuditEvent")
        page = await audit.list_audit_events(context.db, context.workspace_id, request)
        return connection_of(
            info.context.cursors,
            page,
            [AuditEvent.of(event) for event in page.items],
            lambda: audit.count_audit_events(context.db, context.workspace_id),
        )
