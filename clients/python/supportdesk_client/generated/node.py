from typing import Literal, Optional

from pydantic import Field

from .base_model import BaseModel


class Node(BaseModel):
    node: Optional["NodeNode"]


class NodeNode(BaseModel):
    typename__: Literal[
        "Account",
        "ApiKey",
        "Article",
        "AuditEvent",
        "Contact",
        "Issue",
        "Label",
        "MachineUser",
        "Mailbox",
        "Member",
        "Message",
        "Node",
        "WebhookDelivery",
        "WebhookEndpoint",
    ] = Field(alias="__typename")
    id: str


Node.model_rebuild()
