from typing import Optional

from .base_model import BaseModel
from .fragments import ContactFields, MutationErrorFields


class CreateContact(BaseModel):
    create_contact: Optional["CreateContactCreateContact"]


class CreateContactCreateContact(BaseModel):
    contact: Optional["CreateContactCreateContactContact"]
    error: Optional["CreateContactCreateContactError"]


CreateContactCreateContactContact = ContactFields
CreateContactCreateContactError = MutationErrorFields
CreateContact.model_rebuild()
CreateContactCreateContact.model_rebuild()
