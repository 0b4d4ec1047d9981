"""Mailbox: type, query, mutations (docs/email.md)."""

from __future__ import annotations

from datetime import datetime

import strawberry

from supportdesk.domain import mailboxes
from supportdesk.domain.changes import KEEP
from supportdesk.domain.pagination import PageRequest
from supportdesk.graphql.context import Info
from supportdesk.graphql.errors import MutationError, mutate
from supportdesk.graphql.node import Node
from supportdesk.graphql.pagination import Connection, connection_of


@strawberry.type(description="An e-mail address of the workspace: mail to it becomes issues.")
class Mailbox(Node):
    address: str = strawberry.field(
        description="Lowercase; its plus forms (support+anything@…) reach it too."
    )
    name: str
    acknowledge: bool = strawberry.field(
        description="Whether a new issue from e-mail gets one automatic acknowledgement."
    )
    imap_url: str | None = strawberry.field(
        description="The IMAP mailbox polled for mail, its password shown as `***`."
    )
    token_prefix: str = strawberry.field(
        description="The first 12 characters of the inbound token."
    )
    created_at: datetime
    updated_at: datetime

    @classmethod
    def of(cls, mailbox: mailboxes.Mailbox) -> Mailbox:
        return cls(
            id=strawberry.ID(mailbox.id),
            address=mailbox.address,
            name=mailbox.name,
            acknowledge=mailbox.acknowledge,
            imap_url=mailbox.imap_url,
            token_prefix=mailbox.token_prefix,
            created_at=mailbox.created_at,
            updated_at=mailbox.updated_at,
        )


@strawberry.input
class CreateMailboxInput:
    address: str | None = strawberry.field(
        default=None, description="Required; one mailbox of one workspace has it."
    )
    name: str | None = None
    acknowledge: bool | None = strawberry.field(default=None, description="Default false.")
    imap_url: str | None = strawberry.field(
        default=None, description="imaps://user:password@host/INBOX; needs the server key."
    )


@strawberry.input
class UpdateMailboxInput:
    id: strawberry.ID
    address: str | None = None
    name: str | None = None
    acknowledge: bool | None = None
    imap_url: str | None = strawberry.field(
        default=strawberry.UNSET, description="Null or empty removes it."
    )


@strawberry.type
class MailboxTokenPayload:
    mailbox: Mailbox | None = None
    inbound_token: str | None = strawberry.field(
        default=None,
        description="The Bearer of POST /v1/inbound-email for this mailbox. Returned once, here.",
    )
    error: MutationError | None = None


@strawberry.type
class CreateMailboxPayload(MailboxTokenPayload):
    pass


@strawberry.type
class RotateMailboxTokenPayload(MailboxTokenPayload):
    pass


@strawberry.type
class UpdateMailboxPayload:
    mailbox: Mailbox | None = None
    error: MutationError | None = None


@strawberry.type
class DeleteMailboxPayload:
    mailbox: Mailbox | None = strawberry.field(default=None, description="The mailbox as it was.")
    error: MutationError | None = None


@strawberry.type
class MailboxQueries:
    @strawberry.field(description="The workspace's mailboxes, oldest first.")
    async def mailboxes(
        self, info: Info, first: int | None = None, after: str | None = None
    ) -> Connection[Mailbox] | None:
        context = info.context
        request = PageRequest.of(first, after, context.cursors, "Mailbox")
        page = await mailboxes.list_mailboxes(context.db, context.workspace_id, request)
        return connection_of(
            context.cursors,
            page,
            [Mailbox.of(mailbox) for mailbox in page.items],
            lambda: mailboxes.count_mailboxes(context.db, context.workspace_id),
        )


@strawberry.type
class MailboxMutations:
    @strawberry.mutation(
        description="Add a mailbox; its inbound token is in the payload, once. An address"
        " belongs to one mailbox of one workspace (ALREADY_EXISTS)."
    )
    async def create_mailbox(
        self, info: Info, input: CreateMailboxInput
    ) -> CreateMailboxPayload | None:
        context = info.context
        setup = context.webhooks
        assert setup is not None, "the app sets up the server key for every request"

        async def action() -> dict[str, object]:
            made = await mailboxes.create_mailbox(
                context.db,
                context.actor,
                context.workspace_id,
                await setup.box() if input.imap_url else None,
                address=input.address,
                name=input.name,
                acknowledge=input.acknowledge,
                imap_url=input.imap_url,
            )
            return {"mailbox": Mailbox.of(made.mailbox), "inbound_token": made.inbound_token}

        return await mutate(CreateMailboxPayload, action)

    @strawberry.mutation(description="Change a mailbox's address, name, acknowledgement or IMAP.")
    async def update_mailbox(
        self, info: Info, input: UpdateMailboxInput
    ) -> UpdateMailboxPayload | None:
        context = info.context
        setup = context.webhooks
        assert setup is not None, "the app sets up the server key for every request"

        async def action() -> dict[str, object]:
            changed = await mailboxes.update_mailbox(
                context.db,
                context.actor,
                context.workspace_id,
                str(input.id),
                await setup.box() if input.imap_url else None,
                address=input.address,
                name=input.name,
                acknowledge=input.acknowledge,
                imap_url=KEEP if input.imap_url is strawberry.UNSET else input.imap_url,
            )
            return {"mailbox": Mailbox.of(changed)}

        return await mutate(UpdateMailboxPayload, action)

    @strawberry.mutation(
        description="Remove a mailbox and the raw mail it kept; its issues and messages stay."
    )
    async def delete_mailbox(self, info: Info, id: strawberry.ID) -> DeleteMailboxPayload | None:
        context = info.context

        async def action() -> dict[str, object]:
            gone = await mailboxes.delete_mailbox(
                context.db, context.actor, context.workspace_id, str(id)
            )
            return {"mailbox": Mailbox.of(gone)}

        return await mutate(DeleteMailboxPayload, action)

    @strawberry.mutation(
        description="A new inbound token, in the payload once; the previous one stops working."
    )
    async def rotate_mailbox_token(
        self, info: Info, id: strawberry.ID
    ) -> RotateMailboxTokenPayload | None:
        context = info.context

        async def action() -> dict[str, object]:
            rotated = await mailboxes.rotate_mailbox_token(
                context.db, context.actor, context.workspace_id, str(id)
            )
            return {"mailbox": Mailbox.of(rotated.mailbox), "inbound_token": rotated.inbound_token}

        return await mutate(RotateMailboxTokenPayload, action)
