from typing import Optional

from .base_model import BaseModel
from .fragments import ContactFields, PageInfoFields


class Contacts(BaseModel):
    contacts: Optional["ContactsContacts"]


class ContactsContacts(BaseModel):
    total_count: int
    page_info: "ContactsContactsPageInfo"
    edges: list["ContactsContactsEdges"]


ContactsContactsPageInfo = PageInfoFields


class ContactsContactsEdges(BaseModel):
    cursor: str
    node: "ContactsContactsEdgesNode"


ContactsContactsEdgesNode = ContactFields
Contacts.model_rebuild()
ContactsContacts.model_rebuild()
ContactsContactsEdges.model_rebuild()
