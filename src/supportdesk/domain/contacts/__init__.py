"""Contacts: the people who ask for help, one per e-mail address in a workspace."""

from supportdesk.domain.contacts.actions import create_contact, update_contact
from supportdesk.domain.contacts.queries import (
    ContactFilter,
    contacts_of_accounts,
    count_contacts,
    count_contacts_of_accounts,
    get_contact_by_email,
    list_contacts,
)
from supportdesk.domain.contacts.service import Contact, Requester, get_contacts

__all__ = [
    "Contact",
    "ContactFilter",
    "Requester",
    "contacts_of_accounts",
    "count_contacts",
    "count_contacts_of_accounts",
    "create_contact",
    "get_contact_by_email",
    "get_contacts",
    "list_contacts",
    "update_contact",
]
