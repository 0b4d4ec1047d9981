"""`node(id)`: any object by its global id, under the scopes of its own type."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import strawberry

from supportdesk.auth.permissions import NODE_PERMISSIONS, is_allowed
from supportdesk.domain.errors import not_found
from supportdesk.domain.ids import type_of
from supportdesk.graphql.context import Context, Info
from supportdesk.graphql.errors import forbidden
from supportdesk.graphql.node import Node

Fetcher = Callable[[Context, str], Awaitable[Node | None]]
FETCHERS: dict[str, Fetcher] = {}


@strawberry.type
class NodeQueries:
    @strawberry.field(description="Any object by its global id.")
    async def node(self, info: Info, id: strawberry.ID) -> Node | None:
        context = info.context
        type_name = type_of(str(id))
        fetcher = FETCHERS.get(type_name or "")
        if type_name is None or fetcher is None:
            raise not_found("Object")
        required = NODE_PERMISSIONS[type_name]
        if not is_allowed(context.principal, required):
            raise forbidden(required, context.principal.is_legacy)
        found = await fetcher(context, str(id))
        if found is None:
            raise not_found("Object")
        return found
