from typing import Optional

from .base_model import BaseModel
from .fragments import ContactFields, MutationErrorFields


class UpdateContact(BaseModel):
    update_contact: Optional["UpdateContactUpdateContact"]


class UpdateContactUpdateContact(BaseModel):
    contact: Optional["UpdateContactUpdateContactContact"]
    error: Optional["UpdateContactUpdateContactError"]


UpdateContactUpdateContactContact = ContactFields
UpdateContactUpdateContactError = MutationErrorFields
UpdateContact.model_rebuild()
UpdateContactUpdateContact.model_rebuild()
