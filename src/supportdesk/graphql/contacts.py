"""Contact: the person behind an issue. Type, queries, mutations."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Annotated

import strawberry

from supportdesk.domain import contacts
from supportdesk.domain.changes import KEEP
from supportdesk.domain.errors import not_found
from supportdesk.domain.pagination import PageRequest
from supportdesk.graphql.context import Info
from supportdesk.graphql.errors import MutationError, mutate
from supportdesk.graphql.node import Node, load_by_id
from supportdesk.graphql.pagination import Connection, connection_of

if TYPE_CHECKING:
    from supportdesk.graphql.accounts import Account
    from supportdesk.graphql.issues import Issue


@strawberry.type(
    description="A person who asks for help; one per e-mail address in a workspace. A key "
    "without `contacts:read` that meets one (a message's author) reads its `id` only: the "
    "other fields answer null with FORBIDDEN."
)
class Contact(Node):
    # Nullable: null, with FORBIDDEN at its path, for a key that may not read contacts.
    email: str | None
    name: str | None
    created_at: datetime | None
    updated_at: datetime | None
    account_id: strawberry.Private[str | None]

    @strawberry.field(description="The account (company) the contact belongs to, if any.")
    async def account(
        self, info: Info
    ) -> Annotated[Account, strawberry.lazy("supportdesk.graphql.accounts")] | None:
        from supportdesk.graphql.accounts import Account

        if self.account_id is None:
            return None
        found = await info.context.loaders.account.load(self.account_id)
        return Account.of(found) if found else None

    @strawberry.field(description="The issues the contact asked, oldest first.")
    async def issues(
        self, info: Info, first: int | None = None, after: str | None = None
    ) -> Connection[Annotated[Issue, strawberry.lazy("supportdesk.graphql.issues")]] | None:
        from supportdesk.graphql.issues import Issue

        loaders = info.context.loaders
        page = await loaders.issues_of_contact.load(
            (self.id, PageRequest.of(first, after, info.context.cursors, "Issue"))
        )
        return connection_of(
            info.context.cursors,
            page,
            [Issue.of(issue) for issue in page.items],
            lambda: loaders.issue_count_of_contact.load(self.id),
        )

    @classmethod
    def of(cls, contact: contacts.Contact) -> Contact:
        return cls(
            id=strawberry.ID(contact.id),
            email=contact.email,
            name=contact.name,
            created_at=contact.created_at,
            updated_at=contact.updated_at,
            account_id=contact.account_id,
        )


@strawberry.input(
    description="Every field is checked by the service; failures come back in `error`."
)
class CreateContactInput:
    email: str | None = strawberry.field(
        default=None, description="Required; unique in the workspace, ignoring case."
    )
    name: str | None = strawberry.field(default=None, description="Up to 200 characters.")
    account_id: strawberry.ID | None = strawberry.field(
        default=None,
        description="The contact's account; when absent, the account whose domain is the "
        "e-mail's domain, if any.",
    )


@strawberry.input(description="Change what is given; `name` or `accountId` set to null clears it.")
class UpdateContactInput:
    id: strawberry.ID
    email: str | None = strawberry.field(
        default=None,
        description="A new address, free in the workspace. Moving to another domain without "
        "`accountId` moves the contact to that domain's account, when there is one.",
    )
    name: str | None = strawberry.UNSET
    account_id: strawberry.ID | None = strawberry.field(
        default=strawberry.UNSET, description="null detaches the contact from its account."
    )


@strawberry.input
class ContactFilter:
    account_id: strawberry.ID | None = strawberry.field(
        default=None, description="Only the contacts of this account."
    )
    query: str | None = strawberry.field(
        default=None, description="A part of the e-mail address or the name, any case."
    )

    def to_domain(self) -> contacts.ContactFilter:
        account_id = str(self.account_id) if self.account_id is not None else None
        return contacts.ContactFilter(account_id=account_id, query=self.query)


@strawberry.type
class CreateContactPayload:
    contact: Contact | None = None
    error: MutationError | None = None


@strawberry.type
class UpdateContactPayload:
    contact: Contact | None = None
    error: MutationError | None = None


@strawberry.type
class ContactQueries:
    @strawberry.field(description="One contact by its id.")
    async def contact(self, info: Info, id: strawberry.ID) -> Contact | None:
        return Contact.of(await load_by_id(info.context.loaders.contact, id, "Contact"))

    @strawberry.field(description="One contact by e-mail address, in any case.")
    async def contact_by_email(self, info: Info, email: str) -> Contact | None:
        context = info.context
        found = await contacts.get_contact_by_email(context.db, context.workspace_id, email)
        if found is None:
            raise not_found("Contact")
        return Contact.of(found)

    @strawberry.field(description="The workspace's contacts, oldest first.")
    async def contacts(
        self,
        info: Info,
        first: int | None = None,
        after: str | None = None,
        filter: ContactFilter | None = None,
    ) -> Connection[Contact] | None:
        context = info.context
        request = PageRequest.of(first, after, info.context.cursors, "Contact")
        where = filter.to_domain() if filter else contacts.ContactFilter()
        page = await contacts.list_contacts(context.db, context.workspace_id, request, where)
        return connection_of(
            info.context.cursors,
            page,
            [Contact.of(contact) for contact in page.items],
            lambda: contacts.count_contacts(context.db, context.workspace_id, where),
        )


@strawberry.type
class ContactMutations:
    @strawberry.mutation(description="Add a contact to the workspace.")
    async def create_contact(
        self, info: Info, input: CreateContactInput
    ) -> CreateContactPayload | None:
        context = info.context

        async def action() -> dict[str, object]:
            contact = await contacts.create_contact(
                context.db,
                context.actor,
                context.workspace_id,
                input.email,
                input.name,
                str(input.account_id) if input.account_id is not None else None,
            )
            return {"contact": Contact.of(contact)}

        return await mutate(CreateContactPayload, action)

    @strawberry.mutation(description="Change a contact's e-mail, name or account.")
    async def update_contact(
        self, info: Info, input: UpdateContactInput
    ) -> UpdateContactPayload | None:
        context = info.context
        account_id = input.account_id

        async def action() -> dict[str, object]:
            contact = await contacts.update_contact(
                context.db,
                context.actor,
                context.workspace_id,
                str(input.id),
                email=input.email,
                name=KEEP if input.name is strawberry.UNSET else input.name,
                account_id=KEEP
                if account_id is strawberry.UNSET
                else (str(account_id) if account_id is not None else None),
            )
            return {"contact": Contact.of(contact)}

        return await mutate(UpdateContactPayload, action)
