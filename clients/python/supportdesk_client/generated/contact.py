from typing import Optional

from .base_model import BaseModel
from .fragments import ContactFields


class Contact(BaseModel):
    contact: Optional["ContactContact"]


ContactContact = ContactFields
Contact.model_rebuild()
