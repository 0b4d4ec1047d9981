"""Contacts: the people who ask for help, one per e-mail address in a workspace."""

from supportdesk.domain.contacts.service import Contact, get_contacts, upsert_requester

__all__ = ["Contact", "get_contacts", "upsert_requester"]
