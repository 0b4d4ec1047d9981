"""MachineUser: type, queries, mutations."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Annotated

import strawberry

from supportdesk.domain import machine_users
from supportdesk.domain.pagination import PageRequest
from supportdesk.graphql.context import Info
from supportdesk.graphql.errors import MutationError, mutate
from supportdesk.graphql.node import Node
from supportdesk.graphql.pagination import Connection, connection_of

if TYPE_CHECKING:
    from supportdesk.graphql.api_keys import ApiKey


@strawberry.type(description="An API principal that keys belong to; one per integrating system.")
class MachineUser(Node):
    # Nullable like a contact's or a member's, so that a selection of `name` or `createdAt`
    # on each member of a union (MessageAuthor, Assignee) validates: GraphQL refuses `String`
    # beside `String!` for one response key.
    name: str | None
    description: str
    managed: bool = strawberry.field(
        description="Created and kept by the service for Settings → API."
    )
    created_at: datetime | None
    updated_at: datetime | None

    @strawberry.field(description="The machine user's keys, oldest first, revoked ones too.")
    async def api_keys(
        self, info: Info, first: int | None = None, after: str | None = None
    ) -> Connection[Annotated[ApiKey, strawberry.lazy("supportdesk.graphql.api_keys")]] | None:
        from supportdesk.graphql.api_keys import ApiKey

        context = info.context
        page = await context.loaders.keys_of_machine_user.load(
            (self.id, PageRequest.of(first, after, info.context.cursors, "ApiKey"))
        )
        return connection_of(
            info.context.cursors,
            page,
            [ApiKey.of(key, context.now) for key in page.items],
            lambda: context.loaders.key_count_of_machine_user.load(self.id),
        )

    @classmethod
    def of(cls, user: machine_users.MachineUser) -> MachineUser:
        return cls(
            id=strawberry.ID(user.id),
            name=user.name,
            description=user.description,
            managed=user.managed,
            created_at=user.created_at,
            updated_at=user.updated_at,
        )


@strawberry.input
class CreateMachineUserInput:
    name: str | None = strawberry.field(
        default=None, description="Required; unique in the workspace, any case."
    )
    description: str | None = None


@strawberry.input
class UpdateMachineUserInput:
    id: strawberry.ID
    name: str | None = None
    description: str | None = None


@strawberry.type
class CreateMachineUserPayload:
    machine_user: MachineUser | None = None
    error: MutationError | None = None


@strawberry.type
class UpdateMachineUserPayload:
    machine_user: MachineUser | None = None
    error: MutationError | None = None


@strawberry.type
class MachineUserQueries:
    @strawberry.field(description="The workspace's machine users, oldest first.")
    async def machine_users(
        self, info: Info, first: int | None = None, after: str | None = None
    ) -> Connection[MachineUser] | None:
        context = info.context
        request = PageRequest.of(first, after, info.context.cursors, "MachineUser")
        page = await machine_users.list_machine_users(context.db, context.workspace_id, request)
        return connection_of(
            info.context.cursors,
            page,
            [MachineUser.of(user) for user in page.items],
            lambda: machine_users.count_machine_users(context.db, context.workspace_id),
        )


@strawberry.type
class MachineUserMutations:
    @strawberry.mutation
    async def create_machine_user(
        self, info: Info, input: CreateMachineUserInput
    ) -> CreateMachineUserPayload | None:
        context = info.context

        async def action() -> dict[str, object]:
            user = await machine_users.create_machine_user(
                context.db, context.actor, context.workspace_id, input.name, input.description
            )
            return {"machine_user": MachineUser.of(user)}

        return await mutate(CreateMachineUserPayload, action)

    @strawberry.mutation
    async def update_machine_user(
        self, info: Info, input: UpdateMachineUserInput
    ) -> UpdateMachineUserPayload | None:
        context = info.context

        async def action() -> dict[str, object]:
            user = await machine_users.update_machine_user(
                context.db,
                context.actor,
                context.workspace_id,
                str(input.id),
                input.name,
                input.description,
            )
            return {"machine_user": MachineUser.of(user)}

        return await mutate(UpdateMachineUserPayload, action)
