"""Contact: the person behind an issue."""

from __future__ import annotations

from datetime import datetime

import strawberry

from supportdesk.domain import contacts
from supportdesk.graphql.node import Node


@strawberry.type(description="A person who asks for help; one per e-mail address in a workspace.")
class Contact(Node):
    email: str
    name: str | None
    created_at: datetime
    updated_at: datetime
    account_id: strawberry.Private[str | None]

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
