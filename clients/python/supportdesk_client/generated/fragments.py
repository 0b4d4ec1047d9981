from datetime import datetime
from typing import Annotated, Any, Literal, Optional, Union

from pydantic import Field

from .base_model import BaseModel


class AccountFields(BaseModel):
    id: str
    name: str
    domain: Optional[str]
    created_at: datetime
    updated_at: datetime


class ApiKeyFields(BaseModel):
    id: str
    name: str
    key_prefix: str
    scopes: list[str]
    kind: str
    status: str
    created_at: datetime
    last_used_at: Optional[datetime]
    expires_at: Optional[datetime]
    revoked_at: Optional[datetime]


class ArticleFields(BaseModel):
    id: str
    title: str
    body: str
    status: str
    created_at: datetime
    updated_at: datetime
    published_at: Optional[datetime]


class AttachmentFields(BaseModel):
    id: str
    file_name: str
    size_bytes: int
    content_type: str
    download_url: str


class AuditEventFields(BaseModel):
    id: str
    action: str
    actor_type: str
    actor_id: Optional[str]
    actor_label: str
    target_type: str
    target_id: str
    ip_address: Optional[str]
    data: Any
    created_at: datetime


class ContactFields(BaseModel):
    id: str
    email: Optional[str]
    name: Optional[str]
    created_at: Optional[datetime]
    updated_at: Optional[datetime]


class EventFields(BaseModel):
    id: str
    type_: str = Field(alias="type")
    sequence: int
    created_at: datetime
    api_version: str
    workspace_id: str
    actor: "EventFieldsActor"
    data: Any


class EventFieldsActor(BaseModel):
    type_: str = Field(alias="type")
    id: Optional[str]
    name: Optional[str]


class IssueFields(BaseModel):
    id: str
    ticket_number: int
    subject: str
    status: str
    priority: str
    message_count: int
    created_at: datetime
    updated_at: datetime


class LabelFields(BaseModel):
    id: str
    name: str
    color: str
    description: str
    created_at: datetime
    updated_at: datetime


class IssueDetails(IssueFields):
    labels: Optional[list["IssueDetailsLabels"]]
    assignee: Optional[
        Annotated[
            Union["IssueDetailsAssigneeMember", "IssueDetailsAssigneeMachineUser"],
            Field(discriminator="typename__"),
        ]
    ]
    merged_into: Optional["IssueDetailsMergedInto"]


class IssueDetailsLabels(LabelFields):
    pass


class IssueDetailsAssigneeMember(BaseModel):
    typename__: Literal["Member"] = Field(alias="__typename")
    id: str
    name: Optional[str]


class IssueDetailsAssigneeMachineUser(BaseModel):
    typename__: Literal["MachineUser"] = Field(alias="__typename")
    id: str
    name: Optional[str]


class IssueDetailsMergedInto(BaseModel):
    id: str
    ticket_number: int


class MachineUserFields(BaseModel):
    id: str
    name: Optional[str]
    description: str
    managed: bool
    created_at: Optional[datetime]
    updated_at: Optional[datetime]


class MailboxFields(BaseModel):
    id: str
    address: str
    name: str
    acknowledge: bool
    imap_url: Optional[str]
    token_prefix: str
    created_at: datetime
    updated_at: datetime


class MemberFields(BaseModel):
    id: str
    email: Optional[str]
    name: Optional[str]
    role: Optional[str]
    created_at: Optional[datetime]


class MessageFields(BaseModel):
    id: str
    sender_name: str
    body: str
    visibility: str
    channel: str
    created_at: datetime
    author: Optional[
        Annotated[
            Union[
                "MessageFieldsAuthorContact",
                "MessageFieldsAuthorMachineUser",
                "MessageFieldsAuthorMember",
            ],
            Field(discriminator="typename__"),
        ]
    ]
    attachments: Optional[list["MessageFieldsAttachments"]]


class MessageFieldsAuthorContact(BaseModel):
    typename__: Literal["Contact"] = Field(alias="__typename")
    id: str


class MessageFieldsAuthorMachineUser(BaseModel):
    typename__: Literal["MachineUser"] = Field(alias="__typename")
    id: str
    name: Optional[str]


class MessageFieldsAuthorMember(BaseModel):
    typename__: Literal["Member"] = Field(alias="__typename")
    id: str
    name: Optional[str]


class MessageFieldsAttachments(AttachmentFields):
    pass


class MutationErrorFields(BaseModel):
    code: str
    message: str
    fields: list["MutationErrorFieldsFields"]


class MutationErrorFieldsFields(BaseModel):
    field: str
    code: str


class PageInfoFields(BaseModel):
    has_next_page: bool
    end_cursor: Optional[str]


class WebhookDeliveryFields(BaseModel):
    id: str
    event_id: str
    event_type: str
    status: str
    attempts: int
    last_attempt_at: Optional[datetime]
    next_attempt_at: Optional[datetime]
    last_response_status: Optional[int]
    last_error: Optional[str]
    duration_ms: Optional[int]
    created_at: datetime


class WebhookEndpointFields(BaseModel):
    id: str
    url: str
    description: str
    event_types: list[str]
    enabled: bool
    status: str
    disabled_reason: Optional[str]
    secret_prefix: str
    created_at: datetime
    updated_at: datetime


AccountFields.model_rebuild()
ApiKeyFields.model_rebuild()
ArticleFields.model_rebuild()
AttachmentFields.model_rebuild()
AuditEventFields.model_rebuild()
ContactFields.model_rebuild()
EventFields.model_rebuild()
IssueFields.model_rebuild()
LabelFields.model_rebuild()
IssueDetails.model_rebuild()
MachineUserFields.model_rebuild()
MailboxFields.model_rebuild()
MemberFields.model_rebuild()
MessageFields.model_rebuild()
MutationErrorFields.model_rebuild()
PageInfoFields.model_rebuild()
WebhookDeliveryFields.model_rebuild()
WebhookEndpointFields.model_rebuild()
