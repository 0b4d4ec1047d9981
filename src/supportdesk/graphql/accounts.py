"""Account: the company contacts belong to. Type, queries, mutations."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Annotated

import strawberry

from supportdesk.domain import accounts
from supportdesk.domain.changes import KEEP
from supportdesk.domain.pagination import PageRequest
from supportdesk.graphql.contacts import Contact
from supportdesk.graphql.context import Info
from supportdesk.graphql.errors import MutationError, mutate
from supportdesk.graphql.node import Node, load_by_id
from supportdesk.graphql.pagination import Connection, connection_of

if TYPE_CHECKING:
    from supportdesk.graphql.issues import Issue


@strawberry.type(description="A company. Contacts whose e-mail domain equals its `domain` join it.")
class Account(Node):
    name: str
    domain: str | None = strawberry.field(description="A DNS name, lowercase; unique.")
    created_at: datetime
    updated_at: datetime

    @strawberry.field(description="The account's contacts, oldest first.")
    async def contacts(
        self, info: Info, first: int | None = None, after: str | None = None
    ) -> Connection[Contact] | None:
        loaders = info.context.loaders
        page = await loaders.contacts_of_account.load(
            (self.id, PageRequest.of(first, after, info.context.cursors, "Contact"))
        )
        return connection_of(
            info.context.cursors,
            page,
            [Contact.of(contact) for contact in page.items],
            lambda: loaders.contact_count_of_account.load(self.id),
        )

    @strawberry.field(description="The issues the account's contacts asked, oldest first.")
    async def issues(
        self, info: Info, first: int | None = None, after: str | None = None
    ) -> Connection[Annotated[Issue, strawberry.lazy("supportdesk.graphql.issues")]] | None:
        from supportdesk.graphql.issues import Issue

        loaders = info.context.loaders
        page = await loaders.issues_of_account.load(
            (self.id, PageRequest.of(first, after, info.context.cursors, "Issue"))
        )
        return connection_of(
            info.context.cursors,
            page,
            [Issue.of(issue) for issue in page.items],
            lambda: loaders.issue_count_of_account.load(self.id),
        )

    @classmethod
    def of(cls, account: accounts.Account) -> Account:
        return cls(
            id=strawberry.ID(account.id),
            name=account.name,
            domain=account.domain,
            created_at=account.created_at,
            updated_at=account.updated_at,
        )


@strawberry.input(
    description="Every field is checked by the service; failures come back in `error`."
)
class CreateAccountInput:
    name: str | None = strawberry.field(default=None, description="Required; up to 200 characters.")
    domain: str | None = strawberry.field(
        default=None,
        description="A DNS name (e.g. acme.com), unique in the workspace; stored lowercase. "
        "Contacts at this domain without an account join the account.",
    )


@strawberry.input(description="Change what is given.")
class UpdateAccountInput:
    id: strawberry.ID
    name: str | None = None
    domain: str | None = strawberry.field(
        default=strawberry.UNSET,
        description="A new domain, or null to clear it. Contacts at the new domain without "
        "an account join the account; contacts it already has stay with it.",
    )


@strawberry.input
class AccountFilter:
    domain: str | None = strawberry.field(default=None, description="Exactly this domain.")
    query: str | None = strawberry.field(
        default=None, description="A part of the name or the domain, any case."
    )

    def to_domain(self) -> accounts.AccountFilter:
        return accounts.AccountFilter(domain=self.domain, query=self.query)


@strawberry.type
class CreateAccountPayload:
    account: Account | None = None
    error: MutationError | None = None


@strawberry.type
class UpdateAccountPayload:
    account: Account | None = None
    error: MutationError | None = None


@strawberry.type
class AccountQueries:
    @strawberry.field(description="One account by its id.")
    async def account(self, info: Info, id: strawberry.ID) -> Account | None:
        return Account.of(await load_by_id(info.context.loaders.account, id, "Account"))

    @strawberry.field(description="The workspace's accounts, oldest first.")
    async def accounts(
        self,
        info: Info,
        first: int | None = None,
        after: str | None = None,
        filter: AccountFilter | None = None,
    ) -> Connection[Account] | None:
        context = info.context
        request = PageRequest.of(first, after, info.context.cursors, "Account")
        where = filter.to_domain() if filter else accounts.AccountFilter()
        page = await accounts.list_accounts(context.db, context.workspace_id, request, where)
        return connection_of(
            info.context.cursors,
            page,
            [Account.of(account) for account in page.items],
            lambda: accounts.count_accounts(context.db, context.workspace_id, where),
        )


@strawberry.type
class AccountMutations:
    @strawberry.mutation(description="Add an account; contacts at its domain join it.")
    async def create_account(
        self, info: Info, input: CreateAccountInput
    ) -> CreateAccountPayload | None:
        context = info.context

        async def action() -> dict[str, object]:
            account = await accounts.create_account(
                context.db, context.actor, context.workspace_id, input.name, input.domain
            )
            return {"account": Account.of(account)}

        return await mutate(CreateAccountPayload, action)

    @strawberry.mutation(description="Rename an account or change its domain.")
    async def update_account(
        self, info: Info, input: UpdateAccountInput
    ) -> UpdateAccountPayload | None:
        context = info.context

        async def action() -> dict[str, object]:
            account = await accounts.update_account(
                context.db,
                context.actor,
                context.workspace_id,
                str(input.id),
                name=input.name,
                domain=KEEP if input.domain is strawberry.UNSET else input.domain,
            )
            return {"account": Account.of(account)}

        return await mutate(UpdateAccountPayload, action)
