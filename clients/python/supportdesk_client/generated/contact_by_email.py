from typing import Optional

from .base_model import BaseModel
from .fragments import ContactFields


class ContactByEmail(BaseModel):
    contact_by_email: Optional["ContactByEmailContactByEmail"]


ContactByEmailContactByEmail = ContactFields
ContactByEmail.model_rebuild()
