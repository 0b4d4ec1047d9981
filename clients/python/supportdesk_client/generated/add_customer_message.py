from typing import Optional

from .base_model import BaseModel
from .fragments import IssueFields, MessageFields, MutationErrorFields


class AddCustomerMessage(BaseModel):
    add_customer_message: Optional["AddCustomerMessageAddCustomerMessage"]


class AddCustomerMessageAddCustomerMessage(BaseModel):
    issue: Optional["AddCustomerMessageAddCustomerMessageIssue"]
    message: Optional["AddCustomerMessageAddCustomerMessageMessage"]
    error: Optional["AddCustomerMessageAddCustomerMessageError"]


AddCustomerMessageAddCustomerMessageIssue = IssueFields
AddCustomerMessageAddCustomerMessageMessage = MessageFields
AddCustomerMessageAddCustomerMessageError = MutationErrorFields
AddCustomerMessage.model_rebuild()
AddCustomerMessageAddCustomerMessage.model_rebuild()
