"""Member: a person of the workspace (docs/working-issues.md). Type, queries, mutations."""

from __future__ import annotations

from datetime import datetime

import strawberry

from supportdesk.domain import members
from supportdesk.domain.pagination import PageRequest
from supportdesk.graphql.context import Info
from supportdesk.graphql.errors import MutationError, mutate
from supportdesk.graphql.node import Node
from supportdesk.graphql.pagination import Connection, connection_of


@strawberry.type(
    description="A person of the workspace. Admins log in to the settings page; agents "
    "work issues. Issues are assigned to members or machine users. A key without "
    "`members:read` that meets one (an assignee, a message's author) reads `id` and `name`: "
    "the other fields answer null with FORBIDDEN."
)
class Member(Node):
    # Null, with FORBIDDEN at its path, for a key that may not read members; `name` is
    # always shown, and nullable only to match a contact's in the MessageAuthor union.
    email: str | None
    name: str | None
    role: str | None = strawberry.field(description="`admin` or `agent`.")
    created_at: datetime | None

    @classmethod
    def of(cls, member: members.Member) -> Member:
        return cls(
            id=strawberry.ID(member.id),
            email=member.email,
            name=member.name,
            role=member.role,
            created_at=member.created_at,
        )


@strawberry.input(description="Checked by the service; failures come back in `error`.")
class CreateMemberInput:
    email: str | None = strawberry.field(
        default=None, description="Required; unique in the workspace, any case."
    )
    name: str | None = strawberry.field(
        default=None, description="Up to 200 characters; the e-mail when not given."
    )
    role: str | None = strawberry.field(
        default=None,
        description="Required: `admin` or `agent`. Adding an admin needs a Full-access key "
        "(SCOPE_ESCALATION otherwise).",
    )
    password: str | None = strawberry.field(
        default=None,
        description="8–1,024 characters: what the member logs in with at /login. Without "
        "one, the payload's `invitationUrl` lets the member choose it. Never shown again. "
        "Setting one needs a Full-access key (SCOPE_ESCALATION otherwise).",
    )


@strawberry.input(description="Change what is given.")
class UpdateMemberInput:
    id: strawberry.ID
    name: str | None = strawberry.field(default=None, description="1–200 characters.")
    role: str | None = strawberry.field(
        default=None,
        description="`admin` or `agent`; the workspace's last admin stays one (VALIDATION_FAILED). "
        "Changing a role to or from `admin` needs a Full-access key (SCOPE_ESCALATION).",
    )


@strawberry.type
class CreateMemberPayload:
    member: Member | None = None
    invitation_url: str | None = strawberry.field(
        default=None,
        description="A one-time link with which the member chooses their password and logs "
        "in: valid 7 days, used once, shown only here (only its hash is kept). Null when a "
        "password was given, or when the key is not Full-access (a link lets whoever holds it "
        "log in as the member; an admin then makes one on Settings → Members).",
    )
    error: MutationError | None = None


@strawberry.type
class UpdateMemberPayload:
    member: Member | None = None
    error: MutationError | None = None


@strawberry.type
class RemoveMemberPayload:
    member: Member | None = strawberry.field(default=None, description="The member as they were.")
    error: MutationError | None = None


@strawberry.type
class MemberQueries:
    @strawberry.field(description="The workspace's members, in the order they joined.")
    async def members(
        self, info: Info, first: int | None = None, after: str | None = None
    ) -> Connection[Member] | None:
        context = info.context
        request = PageRequest.of(first, after, context.cursors, "Member")
        page = await members.list_members(context.db, context.workspace_id, request)
        return connection_of(
            context.cursors,
            page,
            [Member.of(member) for member in page.items],
            lambda: members.count_members(context.db, context.workspace_id),
        )


@strawberry.type
class MemberMutations:
    @strawberry.mutation(
        description="Add a person to the workspace as an admin or an agent, with a password "
        "or an invitation link (`invitationUrl`)."
    )
    async def create_member(
        self, info: Info, input: CreateMemberInput
    ) -> CreateMemberPayload | None:
        context = info.context

        async def action() -> dict[str, object]:
            added = await members.add_member(
                context.db,
                context.actor,
                context.workspace_id,
                email=input.email,
                name=input.name,
                role=input.role,
                password=input.password,
                key_scopes=context.principal.scopes,
            )
            link = added.invitation.url(context.base_url) if added.invitation else None
            return {"member": Member.of(added.member), "invitation_url": link}

        return await mutate(CreateMemberPayload, action)

    @strawberry.mutation(description="Rename a member or change their role.")
    async def update_member(
        self, info: Info, input: UpdateMemberInput
    ) -> UpdateMemberPayload | None:
        context = info.context

        async def action() -> dict[str, object]:
            member = await members.update_member(
                context.db,
                context.actor,
                context.workspace_id,
                str(input.id),
                name=input.name,
                role=input.role,
                key_scopes=context.principal.scopes,
            )
            return {"member": Member.of(member)}

        return await mutate(UpdateMemberPayload, action)

    @strawberry.mutation(
        description="Remove a member: their issues become unassigned and their settings-page "
        "logins end. The workspace's last admin cannot go (VALIDATION_FAILED); removing an "
        "admin needs a Full-access key (SCOPE_ESCALATION)."
    )
    async def remove_member(self, info: Info, id: strawberry.ID) -> RemoveMemberPayload | None:
        context = info.context

        async def action() -> dict[str, object]:
            member = await members.remove_member(
                context.db,
                context.actor,
                context.workspace_id,
                str(id),
                key_scopes=context.principal.scopes,
            )
            return {"member": Member.of(member)}

        return await mutate(RemoveMemberPayload, action)
