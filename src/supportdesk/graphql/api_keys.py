"""ApiKey: type, queries, mutations."""

from __future__ import annotations

from datetime import datetime

import strawberry

from supportdesk.domain import api_keys
from supportdesk.domain.pagination import PageRequest
from supportdesk.graphql.context import Info
from supportdesk.graphql.errors import MutationError, mutate
from supportdesk.graphql.machine_users import MachineUser
from supportdesk.graphql.node import Node
from supportdesk.graphql.pagination import Connection, connection_of


@strawberry.type(description="An API key's record. The secret is never readable after creation.")
class ApiKey(Node):
    name: str
    key_prefix: str = strawberry.field(description="The first 12 characters of the secret.")
    scopes: list[str]
    kind: str = strawberry.field(description="`standard` (svc_mk_) or `legacy` (svc_live_).")
    status: str = strawberry.field(description="`active`, `revoked` or `expired`.")
    created_at: datetime
    last_used_at: datetime | None = strawberry.field(description="Recorded at most once a minute.")
    expires_at: datetime | None
    revoked_at: datetime | None
    machine_user_id: strawberry.Private[str]

    @strawberry.field
    async def machine_user(self, info: Info) -> MachineUser | None:
        user = await info.context.loaders.machine_user.load(self.machine_user_id)
        return MachineUser.of(user) if user else None

    @classmethod
    def of(cls, key: api_keys.ApiKey, at: datetime) -> ApiKey:
        return cls(
            id=strawberry.ID(key.id),
            name=key.name,
            key_prefix=key.key_prefix,
            scopes=list(key.scopes),
            kind=key.kind,
            status=key.status(at),
            created_at=key.created_at,
            last_used_at=key.last_used_at,
            expires_at=key.expires_at,
            revoked_at=key.revoked_at,
            machine_user_id=key.machine_user_id,
        )


@strawberry.input
class CreateApiKeyInput:
    machine_user_id: strawberry.ID
    # Nullable, as every required value of an input: a missing one comes back in `error`.
    name: str | None = strawberry.field(default=None, description="Required; up to 100 characters.")
    scopes: list[str] | None = strawberry.field(
        default=None, description="Required: at least one scope."
    )
    expires_at: datetime | None = None


@strawberry.type
class CreateApiKeyPayload:
    api_key: ApiKey | None = None
    secret: str | None = strawberry.field(
        default=None, description="The full key. Returned once, here; it cannot be read again."
    )
    error: MutationError | None = None


@strawberry.type
class RevokeApiKeyPayload:
    api_key: ApiKey | None = None
    error: MutationError | None = None


@strawberry.type
class ApiKeyQueries:
    @strawberry.field(description="The workspace's API keys, oldest first.")
    async def api_keys(
        self,
        info: Info,
        first: int | None = None,
        after: str | None = None,
        machine_user_id: strawberry.ID | None = None,
    ) -> Connection[ApiKey] | None:
        context = info.context
        request = PageRequest.of(first, after, info.context.cursors, "ApiKey")
        owner = str(machine_user_id) if machine_user_id is not None else None
        page = await api_keys.list_api_keys(context.db, context.workspace_id, request, owner)
        return connection_of(
            info.context.cursors,
            page,
            [ApiKey.of(key, context.now) for key in page.items],
            lambda: api_keys.count_api_keys(context.db, context.workspace_id, owner),
        )


@strawberry.type
class ApiKeyMutations:
    @strawberry.mutation(description="Create a key; its secret is in the payload, once.")
    async def create_api_key(
        self, info: Info, input: CreateApiKeyInput
    ) -> CreateApiKeyPayload | None:
        context = info.context

        async def action() -> dict[str, object]:
            created = await api_keys.create_api_key(
                context.db,
                context.actor,
                context.workspace_id,
                machine_user_id=str(input.machine_user_id),
                name=input.name,
                scopes=input.scopes,
                expires_at=input.expires_at,
                granter=api_keys.Granter(context.principal.scopes, context.principal.expires_at),
            )
            return {"api_key": ApiKey.of(created.api_key, context.now), "secret": created.secret}

        return await mutate(CreateApiKeyPayload, action)

    @strawberry.mutation(description="Revoke a key now; revoking a revoked key changes nothing.")
    async def revoke_api_key(self, info: Info, id: strawberry.ID) -> RevokeApiKeyPayload | None:
        context = info.context

        async def action() -> dict[str, object]:
            key = await api_keys.revoke_api_key(
                context.db, context.actor, context.workspace_id, str(id)
            )
            return {"api_key": ApiKey.of(key, context.now)}

        return await mutate(RevokeApiKeyPayload, action)
