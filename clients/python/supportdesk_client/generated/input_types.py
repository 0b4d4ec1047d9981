from datetime import datetime
from typing import Optional

from .base_model import BaseModel


class AccountFilter(BaseModel):
    domain: Optional[str] = None
    "Exactly this domain."
    query: Optional[str] = None
    "A part of the name or the domain, any case."


class AddCustomerMessageInput(BaseModel):
    issue_id: str
    body: Optional[str] = None
    "Required."
    attachment_ids: Optional[list[str]] = None
    "Up to 25 uploads (createAttachmentUpload, then a PUT of the bytes) this message takes, in the same transaction. An id that is no upload of the workspace (UNKNOWN), has no bytes yet (NOT_UPLOADED) or belongs to a message (ALREADY_ATTACHED) fails the call: VALIDATION_FAILED, field `attachmentIds`."


class AddLabelsInput(BaseModel):
    """Labels to put on one issue."""

    issue_id: str
    label_ids: list[str]
    "Labels of the workspace; one that does not exist fails the whole call (`labelIds` UNKNOWN). Labels already on are no change."


class AddNoteInput(BaseModel):
    """An internal note: a message the requester never sees."""

    issue_id: str
    body: Optional[str] = None
    "Required."
    attachment_ids: Optional[list[str]] = None
    "Up to 25 uploads (createAttachmentUpload, then a PUT of the bytes) this message takes, in the same transaction. An id that is no upload of the workspace (UNKNOWN), has no bytes yet (NOT_UPLOADED) or belongs to a message (ALREADY_ATTACHED) fails the call: VALIDATION_FAILED, field `attachmentIds`."


class ArticleFilter(BaseModel):
    status: Optional[str] = None
    "`draft` or `published`."
    query: Optional[str] = None
    "Full-text search: every word must match (stemmed). The list is then ordered by relevance, then creation."


class AssignIssueInput(BaseModel):
    """Who works on an issue."""

    issue_id: str
    assignee_id: Optional[str] = None
    "Required: a member or a machine user of the workspace, or null to unassign. Any other id fails the call (`assigneeId` UNKNOWN)."


class ContactFilter(BaseModel):
    account_id: Optional[str] = None
    "Only the contacts of this account."
    query: Optional[str] = None
    "A part of the e-mail address or the name, any case."


class CreateAccountInput(BaseModel):
    """Every field is checked by the service; failures come back in `error`."""

    name: Optional[str] = None
    "Required; up to 200 characters."
    domain: Optional[str] = None
    "A DNS name (e.g. acme.com), unique in the workspace; stored lowercase. Contacts at this domain without an account join the account."


class CreateApiKeyInput(BaseModel):
    machine_user_id: str
    name: Optional[str] = None
    "Required; up to 100 characters."
    scopes: Optional[list[str]] = None
    "Required: at least one scope."
    expires_at: Optional[datetime] = None


class CreateArticleInput(BaseModel):
    """Every field is checked by the service; failures come back in `error`."""

    title: Optional[str] = None
    "Required; 1–255 characters."
    body: Optional[str] = None
    "Up to 100,000 characters."
    status: Optional[str] = None
    "`draft` (default) or `published`; any case."


class CreateAttachmentUploadInput(BaseModel):
    """The file to come; its bytes follow in a PUT to `uploadUrl`."""

    file_name: Optional[str] = None
    "Required, up to 255 characters; a folder before it is dropped."
    size_bytes: Optional[int] = None
    "Required: exactly how many bytes the PUT sends, at most the server's limit (25 MB by default; larger: `sizeBytes` TOO_LARGE)."
    content_type: Optional[str] = None
    "What the client believes; the type kept is sniffed."


class CreateContactInput(BaseModel):
    """Every field is checked by the service; failures come back in `error`."""

    email: Optional[str] = None
    "Required; unique in the workspace, ignoring case."
    name: Optional[str] = None
    "Up to 200 characters."
    account_id: Optional[str] = None
    "The contact's account; when absent, the account whose domain is the e-mail's domain, if any."


class CreateIssueInput(BaseModel):
    """Every field is checked by the service; failures come back in `error`."""

    subject: Optional[str] = None
    "Required; 1–255 characters."
    body: Optional[str] = None
    "Required; the first message, up to 65,536 characters."
    requester_email: Optional[str] = None
    "Required; the requester becomes a contact of the workspace."
    requester_name: Optional[str] = None
    "Up to 200 characters."
    priority: Optional[str] = None
    "`low`, `normal` (default), `high` or `urgent`; any case."
    idempotency_key: Optional[str] = None
    "Optional, up to 255 characters. A retry with the same key and input within 24 hours answers the issue the first call created; another input answers IDEMPOTENCY_KEY_MISMATCH."
    attachment_ids: Optional[list[str]] = None
    "Up to 25 uploads (createAttachmentUpload, then a PUT of the bytes) this message takes, in the same transaction. An id that is no upload of the workspace (UNKNOWN), has no bytes yet (NOT_UPLOADED) or belongs to a message (ALREADY_ATTACHED) fails the call: VALIDATION_FAILED, field `attachmentIds`."


class CreateLabelInput(BaseModel):
    """Checked by the service; failures come back in `error`."""

    name: Optional[str] = None
    "Required; 1–50 characters, unique in the workspace, any case."
    color: Optional[str] = None
    "`#rrggbb`; gray (`#6b7280`) when not given."
    description: Optional[str] = None
    "Up to 500 characters."


class CreateMachineUserInput(BaseModel):
    name: Optional[str] = None
    "Required; unique in the workspace, any case."
    description: Optional[str] = None


class CreateMailboxInput(BaseModel):
    address: Optional[str] = None
    "Required; one mailbox of one workspace has it."
    name: Optional[str] = None
    acknowledge: Optional[bool] = None
    "Default false."
    imap_url: Optional[str] = None
    "imaps://user:password@host/INBOX; needs the server key."


class CreateMemberInput(BaseModel):
    """Checked by the service; failures come back in `error`."""

    email: Optional[str] = None
    "Required; unique in the workspace, any case."
    name: Optional[str] = None
    "Up to 200 characters; the e-mail when not given."
    role: Optional[str] = None
    "Required: `admin` or `agent`. Adding an admin needs a Full-access key (SCOPE_ESCALATION otherwise)."
    password: Optional[str] = None
    "8–1,024 characters: what the member logs in with at /login. Without one, the payload's `invitationUrl` lets the member choose it. Never shown again. Setting one needs a Full-access key (SCOPE_ESCALATION otherwise)."


class CreateWebhookEndpointInput(BaseModel):
    url: Optional[str] = None
    "Required: https://…"
    description: Optional[str] = None
    event_types: Optional[list[str]] = None
    "Empty or absent: every type."
    enabled: Optional[bool] = None
    "Default true."


class EventFilter(BaseModel):
    types: Optional[list[str]] = None
    "Only these types, e.g. `issue.created`."
    since_sequence: Optional[int] = None
    "Only events after this sequence (the last one you saw). Older than retention answers BAD_USER_INPUT with `extensions.oldestSequence`."


class IssueFilter(BaseModel):
    status: Optional[list[str]] = None
    "Any of these statuses."
    priority: Optional[list[str]] = None
    "Any of these."
    requester_email: Optional[str] = None
    created_after: Optional[datetime] = None
    "Inclusive."
    created_before: Optional[datetime] = None
    "Exclusive."
    updated_after: Optional[datetime] = None
    "Exclusive: issues changed after this instant. With UPDATED_AT_ASC, poll for changes by passing the last `updatedAt` seen."
    updated_before: Optional[datetime] = None
    "Exclusive."
    label_ids: Optional[list[str]] = None
    "Issues carrying every one of these labels."
    assignee_id: Optional[str] = None
    "Issues assigned to this member or machine user."
    unassigned: Optional[bool] = None
    "`true`: issues assigned to nobody; `false`: to someone."
    query: Optional[str] = None
    "Full-text search over the subject and every message, internal notes included: every word must match (stemmed). Up to 500 characters and 32 words. The list is then ordered by relevance, then creation, unless `orderBy` says otherwise."


class MergeIssueInput(BaseModel):
    """A duplicate (`sourceId`) and the issue it duplicates."""

    source_id: str
    "Closed by the merge; its messages join the target's thread."
    target_id: str


class RedeliverWebhookEventInput(BaseModel):
    endpoint_id: str
    event_id: str


class RemoveLabelsInput(BaseModel):
    """Labels to take off one issue."""

    issue_id: str
    label_ids: list[str]
    "Labels of the workspace; one that does not exist fails the whole call (`labelIds` UNKNOWN). Labels already off are no change."


class ReplayWebhookEventsInput(BaseModel):
    endpoint_id: str
    from_sequence: int
    to_sequence: int
    "At most 1,000 events after fromSequence."


class ReplyToIssueInput(BaseModel):
    issue_id: str
    body: Optional[str] = None
    "Required."
    status: Optional[str] = None
    "Optionally move the issue, in the same transaction."
    attachment_ids: Optional[list[str]] = None
    "Up to 25 uploads (createAttachmentUpload, then a PUT of the bytes) this message takes, in the same transaction. An id that is no upload of the workspace (UNKNOWN), has no bytes yet (NOT_UPLOADED) or belongs to a message (ALREADY_ATTACHED) fails the call: VALIDATION_FAILED, field `attachmentIds`."


class RotateWebhookSecretInput(BaseModel):
    id: str
    keep_previous_for_seconds: Optional[int] = None
    "How long deliveries also carry a signature made with the previous secret: 0 to 604800, default 86400."


class UpdateAccountInput(BaseModel):
    """Change what is given."""

    id: str
    name: Optional[str] = None
    domain: Optional[str] = None
    "A new domain, or null to clear it. Contacts at the new domain without an account join the account; contacts it already has stay with it."


class UpdateArticleInput(BaseModel):
    """Change what is given."""

    id: str
    title: Optional[str] = None
    body: Optional[str] = None


class UpdateContactInput(BaseModel):
    """Change what is given; `name` or `accountId` set to null clears it."""

    id: str
    email: Optional[str] = None
    "A new address, free in the workspace. Moving to another domain without `accountId` moves the contact to that domain's account, when there is one."
    name: Optional[str] = None
    account_id: Optional[str] = None
    "null detaches the contact from its account."


class UpdateIssueInput(BaseModel):
    """Change what is given."""

    id: str
    subject: Optional[str] = None
    status: Optional[str] = None
    priority: Optional[str] = None


class UpdateIssuesInput(BaseModel):
    """One change to up to 100 issues: all of them change, or none does."""

    ids: list[str]
    "1–100 issues of the workspace."
    status: Optional[str] = None
    priority: Optional[str] = None
    add_label_ids: Optional[list[str]] = None
    "Labels to put on each issue."
    remove_label_ids: Optional[list[str]] = None
    "Labels to take off each issue."
    assignee_id: Optional[str] = None
    "A member or machine user to assign each issue to; null unassigns; left out, assignees stay."


class UpdateLabelInput(BaseModel):
    """Change what is given."""

    id: str
    name: Optional[str] = None
    color: Optional[str] = None
    description: Optional[str] = None


class UpdateMachineUserInput(BaseModel):
    id: str
    name: Optional[str] = None
    description: Optional[str] = None


class UpdateMailboxInput(BaseModel):
    id: str
    address: Optional[str] = None
    name: Optional[str] = None
    acknowledge: Optional[bool] = None
    imap_url: Optional[str] = None
    "Null or empty removes it."


class UpdateMemberInput(BaseModel):
    """Change what is given."""

    id: str
    name: Optional[str] = None
    "1–200 characters."
    role: Optional[str] = None
    "`admin` or `agent`; the workspace's last admin stays one (VALIDATION_FAILED). Changing a role to or from `admin` needs a Full-access key (SCOPE_ESCALATION)."


class UpdateWebhookEndpointInput(BaseModel):
    id: str
    url: Optional[str] = None
    description: Optional[str] = None
    event_types: Optional[list[str]] = None
    enabled: Optional[bool] = None


class WebhookDeliveryFilter(BaseModel):
    status: Optional[str] = None
    "`pending`, `succeeded` or `failed`."
