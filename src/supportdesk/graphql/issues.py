"""Issue and Message: types, queries, mutations."""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from typing import Annotated, Any

import strawberry

from supportdesk.domain import issues, members
from supportdesk.domain.audit import Actor
from supportdesk.domain.email import message_emails
from supportdesk.domain.errors import (
    DomainError,
    ErrorCode,
    FieldCode,
    FieldError,
    InvalidArgument,
    not_found,
)
from supportdesk.domain.ids import is_id_of
from supportdesk.domain.pagination import PageRequest
from supportdesk.graphql.attachments import (
    ATTACHMENT_IDS_DESCRIPTION,
    Attachment,
    attachment_ids_of,
)
from supportdesk.graphql.contacts import Contact
from supportdesk.graphql.context import Info
from supportdesk.graphql.errors import MutationError, mutate
from supportdesk.graphql.labels import Label
from supportdesk.graphql.machine_users import MachineUser
from supportdesk.graphql.members import Member
from supportdesk.graphql.node import Node
from supportdesk.graphql.pagination import Connection, connection_of

MessageAuthor = Annotated[Contact | MachineUser | Member, strawberry.union("MessageAuthor")]
Assignee = Annotated[Member | MachineUser, strawberry.union("Assignee")]


async def _person(info: Info, person_id: str | None) -> Any:
    """A member or machine user by id, through the request's one batch for both; None for
    one the workspace no longer has."""
    if person_id is None:
        return None
    found = await info.context.loaders.person.load(person_id)
    if isinstance(found, members.Member):
        return Member.of(found)
    return MachineUser.of(found) if found is not None else None


@strawberry.type(description="The e-mail a message came in as, or a public reply goes out as.")
class MessageEmail:
    status: str = strawberry.field(
        description="`received` for mail that came in; `queued`, `sent` or `failed` going out."
    )
    message_id: str = strawberry.field(description="Its Message-ID, without angle brackets.")
    original_text: str | None = strawberry.field(
        description="The text as it came, before the quoted history was trimmed from `body`."
    )
    error: str | None = strawberry.field(description="Why sending it failed.")

    @classmethod
    def of(cls, email: message_emails.MessageEmail) -> MessageEmail:
        return cls(
            status=email.status,
            message_id=email.message_key,
            original_text=email.original_text,
            error=email.error,
        )


@strawberry.type(description="A message of an issue's thread.")
class Message(Node):
    sender_name: str
    body: str
    visibility: str = strawberry.field(
        description="`public` (the requester sees it), or `internal` for a note (addNote)."
    )
    created_at: datetime
    channel: str = strawberry.field(
        description="Where it came from: `api`, `inbox` (a person's page) or `email`."
    )
    author_type: strawberry.Private[str]
    author_id: strawberry.Private[str]

    @strawberry.field(description="Its e-mail side; null for a message that never was mail.")
    async def email(self, info: Info) -> MessageEmail | None:
        found = await info.context.loaders.email_of_message.load(self.id)
        return MessageEmail.of(found) if found is not None else None

    @strawberry.field(
        description="Who wrote it: the requester (a Contact), a machine user or a member; "
        "null for the command line and anyone the workspace no longer has."
    )
    async def author(self, info: Info) -> MessageAuthor | None:
        if self.author_type == "contact":
            contact = await info.context.loaders.contact.load(self.author_id)
            return Contact.of(contact) if contact else None
        found: MessageAuthor | None = None
        if self.author_type in ("machine_user", "member"):
            found = await _person(info, self.author_id)
        return found

    @strawberry.field(description="The message's files, in the order they were uploaded.")
    async def attachments(self, info: Info) -> list[Attachment] | None:
        # The files of a whole thread are read in one batch.
        files = await info.context.loaders.attachments_of_message.load(self.id)
        return [Attachment.of(file, info.context.base_url) for file in files]

    @classmethod
    def of(cls, message: issues.Message) -> Message:
        return cls(
            id=strawberry.ID(message.id),
            sender_name=message.sender_name,
            body=message.body,
            visibility=message.visibility,
            created_at=message.created_at,
            channel=message.channel,
            author_type=message.author_type,
            author_id=message.author_id,
        )


@strawberry.type(description="A support issue (ticket).")
class Issue(Node):
    ticket_number: int = strawberry.field(description="Per workspace, from 1, gap-free.")
    subject: str
    status: str = strawberry.field(
        description="`new`, `open`, `pending`, `on_hold`, `solved` or `closed`."
    )
    priority: str = strawberry.field(description="`low`, `normal`, `high` or `urgent`.")
    message_count: int
    created_at: datetime
    updated_at: datetime
    requester_id: strawberry.Private[str]
    merged_into_id: strawberry.Private[str | None] = None
    assignee_type: strawberry.Private[str | None] = None
    assignee_id: strawberry.Private[str | None] = None

    @strawberry.field(
        description="Who works on it: a member or a machine user (assignIssue); null for nobody."
    )
    async def assignee(self, info: Info) -> Assignee | None:
        # The assignees of a whole list are read in one batch per kind.
        found: Assignee | None = await _person(info, self.assignee_id)
        return found

    @strawberry.field(
        description="The thread, oldest message first, internal notes included. "
        '`visibility` keeps the messages of one kind: `visibility: "public"` those the '
        'requester sees, `visibility: "internal"` the notes.'
    )
    async def messages(
        self,
        info: Info,
        first: int | None = None,
        after: str | None = None,
        visibility: str | None = None,
    ) -> Connection[Message] | None:
        loaders = info.context.loaders
        request = PageRequest.of(first, after, info.context.cursors, "Message")
        if visibility is None:
            page = await loaders.messages.load((self.id, request))
            total = self.message_count

            async def count() -> int:
                return total

            return connection_of(
                info.context.cursors, page, [Message.of(m) for m in page.items], count
            )
        visibility = visibility.strip().lower()  # any case, as every status-like value
        if visibility not in issues.VISIBILITIES:
            raise InvalidArgument("`visibility` is `public` or `internal`.")
        page = await loaders.messages.load((self.id, request, visibility))
        return connection_of(
            info.context.cursors,
            page,
            [Message.of(m) for m in page.items],
            lambda: loaders.message_count_of_visibility.load((self.id, visibility)),
        )

    @strawberry.field(
        description="The issue this one was merged into (mergeIssue); it is then closed and "
        "takes no more changes (ISSUE_MERGED). Null for an issue not merged."
    )
    async def merged_into(self, info: Info) -> Issue | None:
        if self.merged_into_id is None:
            return None
        found = await info.context.loaders.issue.load(self.merged_into_id)
        return Issue.of(found) if found else None

    @strawberry.field(description="The labels the issue carries, by name.")
    async def labels(self, info: Info) -> list[Label] | None:
        # The labels of a whole list are read in one batch.
        carried = await info.context.loaders.labels_of_issue.load(self.id)
        return [Label.of(label) for label in carried]

    @strawberry.field(description="The contact who asked.")
    async def requester(self, info: Info) -> Contact | None:
        # The requesters of a whole list are read in one batch.
        return _contact_or_none(await info.context.loaders.contact.load(self.requester_id))

    @classmethod
    def of(cls, issue: issues.Issue) -> Issue:
        return cls(
            id=strawberry.ID(issue.id),
            ticket_number=issue.ticket_number,
            subject=issue.subject,
            status=issue.status,
            priority=issue.priority,
            message_count=issue.message_count,
            created_at=issue.created_at,
            updated_at=issue.updated_at,
            requester_id=issue.requester_id,
            merged_into_id=issue.merged_into,
            assignee_type=issue.assignee_type,
            assignee_id=issue.assignee_id,
        )


@strawberry.input(
    description="Every field is checked by the service; failures come back in `error`."
)
class CreateIssueInput:
    subject: str | None = strawberry.field(default=None, description="Required; 1–255 characters.")
    body: str | None = strawberry.field(
        default=None, description="Required; the first message, up to 65,536 characters."
    )
    requester_email: str | None = strawberry.field(
        default=None, description="Required; the requester becomes a contact of the workspace."
    )
    requester_name: str | None = strawberry.field(default=None, description="Up to 200 characters.")
    priority: str | None = strawberry.field(
        default=None, description="`low`, `normal` (default), `high` or `urgent`; any case."
    )
    idempotency_key: str | None = strawberry.field(
        default=None,
        description=(
            "Optional, up to 255 characters. A retry with the same key and input within "
            "24 hours answers the issue the first call created; another input answers "
            "IDEMPOTENCY_KEY_MISMATCH."
        ),
    )
    attachment_ids: list[strawberry.ID] | None = strawberry.field(
        default=None, description=ATTACHMENT_IDS_DESCRIPTION
    )


@strawberry.input(description="Change what is given.")
class UpdateIssueInput:
    id: strawberry.ID
    subject: str | None = None
    status: str | None = None
    priority: str | None = None


@strawberry.input
class ReplyToIssueInput:
    issue_id: strawberry.ID
    body: str | None = strawberry.field(default=None, description="Required.")
    status: str | None = strawberry.field(
        default=None, description="Optionally move the issue, in the same transaction."
    )
    attachment_ids: list[strawberry.ID] | None = strawberry.field(
        default=None, description=ATTACHMENT_IDS_DESCRIPTION
    )


@strawberry.input(description="One change to up to 100 issues: all of them change, or none does.")
class UpdateIssuesInput:
    ids: list[strawberry.ID] = strawberry.field(description="1–100 issues of the workspace.")
    status: str | None = None
    priority: str | None = None
    add_label_ids: list[strawberry.ID] | None = strawberry.field(
        default=None, description="Labels to put on each issue."
    )
    remove_label_ids: list[strawberry.ID] | None = strawberry.field(
        default=None, description="Labels to take off each issue."
    )
    assignee_id: strawberry.ID | None = strawberry.field(
        default=strawberry.UNSET,
        description="A member or machine user to assign each issue to; null unassigns; "
        "left out, assignees stay.",
    )


@strawberry.type
class UpdateIssuesPayload:
    issues: list[Issue] | None = strawberry.field(
        default=None, description="The issues in the order of `ids`, changed."
    )
    error: MutationError | None = strawberry.field(
        default=None,
        description="When any issue cannot change: `fields` names each such id (`field`) "
        "with its code (NOT_FOUND, ISSUE_CLOSED, INVALID_STATUS_TRANSITION, LIMIT_REACHED).",
    )


@strawberry.input(description="A duplicate (`sourceId`) and the issue it duplicates.")
class MergeIssueInput:
    source_id: strawberry.ID = strawberry.field(
        description="Closed by the merge; its messages join the target's thread."
    )
    target_id: strawberry.ID


@strawberry.type
class MergeIssuePayload:
    issue: Issue | None = strawberry.field(
        default=None, description="The target, with the whole thread."
    )
    source: Issue | None = strawberry.field(
        default=None, description="The source, closed, with `mergedInto`."
    )
    error: MutationError | None = None


@strawberry.input(description="Who works on an issue.")
class AssignIssueInput:
    issue_id: strawberry.ID
    assignee_id: strawberry.ID | None = strawberry.field(
        default=strawberry.UNSET,
        description="Required: a member or a machine user of the workspace, or null to "
        "unassign. Any other id fails the call (`assigneeId` UNKNOWN).",
    )


@strawberry.type
class AssignIssuePayload:
    issue: Issue | None = None
    error: MutationError | None = None


@strawberry.input(description="An internal note: a message the requester never sees.")
class AddNoteInput:
    issue_id: strawberry.ID
    body: str | None = strawberry.field(default=None, description="Required.")
    attachment_ids: list[strawberry.ID] | None = strawberry.field(
        default=None, description=ATTACHMENT_IDS_DESCRIPTION
    )


@strawberry.input
class AddCustomerMessageInput:
    issue_id: strawberry.ID
    body: str | None = strawberry.field(default=None, description="Required.")
    attachment_ids: list[strawberry.ID] | None = strawberry.field(
        default=None, description=ATTACHMENT_IDS_DESCRIPTION
    )


@strawberry.input
class IssueFilter:
    status: list[str] | None = strawberry.field(default=None, description="Any of these statuses.")
    priority: list[str] | None = strawberry.field(default=None, description="Any of these.")
    requester_email: str | None = None
    created_after: datetime | None = strawberry.field(default=None, description="Inclusive.")
    created_before: datetime | None = strawberry.field(default=None, description="Exclusive.")
    updated_after: datetime | None = strawberry.field(
        default=None,
        description="Exclusive: issues changed after this instant. With UPDATED_AT_ASC, "
        "poll for changes by passing the last `updatedAt` seen.",
    )
    updated_before: datetime | None = strawberry.field(default=None, description="Exclusive.")
    label_ids: list[strawberry.ID] | None = strawberry.field(
        default=None, description="Issues carrying every one of these labels."
    )
    assignee_id: strawberry.ID | None = strawberry.field(
        default=None, description="Issues assigned to this member or machine user."
    )
    unassigned: bool | None = strawberry.field(
        default=None, description="`true`: issues assigned to nobody; `false`: to someone."
    )
    query: str | None = strawberry.field(
        default=None,
        description="Full-text search over the subject and every message, internal notes "
        "included: every word must match (stemmed). Up to 500 characters and 32 words. The "
        "list is then ordered by relevance, then creation, unless `orderBy` says otherwise.",
    )

    def to_domain(self) -> issues.IssueFilter:
        return issues.IssueFilter(
            statuses=tuple(s.strip().lower() for s in self.status or ()),
            priorities=tuple(p.strip().lower() for p in self.priority or ()),
            requester_email=self.requester_email,
            created_after=self.created_after,
            created_before=self.created_before,
            updated_after=self.updated_after,
            updated_before=self.updated_before,
            label_ids=tuple(str(label_id) for label_id in self.label_ids or ()),
            assignee_id=str(self.assignee_id) if self.assignee_id is not None else None,
            unassigned=self.unassigned,
            query=self.query,
        )


@strawberry.enum(description="A cursor is only valid in the order that gave it out.")
class IssueOrder(Enum):
    CREATED_AT_ASC = "created_at_asc"
    CREATED_AT_DESC = "created_at_desc"
    UPDATED_AT_ASC = strawberry.enum_value(
        "updated_at_asc",
        description="Least recently changed first (then by id): the order to poll in.",
    )
    UPDATED_AT_DESC = strawberry.enum_value(
        "updated_at_desc", description="Most recently changed first (then by id)."
    )
    RELEVANCE = strawberry.enum_value(
        "relevance",
        description="Most relevant to `filter.query` first, then oldest first: the order of "
        "a search. Without a query every issue is as relevant: oldest first.",
    )


_DOMAIN_ORDER = {
    IssueOrder.CREATED_AT_ASC: issues.IssueOrder.CREATED_ASC,
    IssueOrder.CREATED_AT_DESC: issues.IssueOrder.CREATED_DESC,
    IssueOrder.UPDATED_AT_ASC: issues.IssueOrder.UPDATED_ASC,
    IssueOrder.UPDATED_AT_DESC: issues.IssueOrder.UPDATED_DESC,
    IssueOrder.RELEVANCE: issues.IssueOrder.RELEVANCE,
}


@strawberry.type
class CreateIssuePayload:
    issue: Issue | None = None
    error: MutationError | None = None


@strawberry.type
class UpdateIssuePayload:
    issue: Issue | None = None
    error: MutationError | None = None


@strawberry.type
class ReplyToIssuePayload:
    issue: Issue | None = None
    message: Message | None = None
    error: MutationError | None = None


@strawberry.type
class AddNotePayload:
    issue: Issue | None = None
    message: Message | None = strawberry.field(default=None, description="The note.")
    error: MutationError | None = None


@strawberry.type
class AddCustomerMessagePayload:
    issue: Issue | None = None
    message: Message | None = strawberry.field(default=None, description="The customer's message.")
    error: MutationError | None = None


def issue_order_of(given: Any) -> issues.IssueOrder | None:
    """The domain's order from an `IssueOrder` argument as graphql-core coerces it."""
    if given is None:
        return None
    return _DOMAIN_ORDER[given if isinstance(given, IssueOrder) else IssueOrder(given)]


async def load_issue(info: Info, issue_id: str) -> Issue:
    found = await info.context.loaders.issue.load(issue_id) if is_id_of(issue_id, "Issue") else None
    if found is None:
        raise not_found("Issue")
    return Issue.of(found)


@strawberry.type
class IssueQueries:
    @strawberry.field(description="One issue by its id.")
    async def issue(self, info: Info, id: strawberry.ID) -> Issue | None:
        return await load_issue(info, str(id))

    @strawberry.field(description="One issue by its ticket number.")
    async def issue_by_number(self, info: Info, ticket_number: int) -> Issue | None:
        context = info.context
        found = await issues.fetch_issue_by_number(context.db, context.workspace_id, ticket_number)
        if found is None:
            raise not_found("Issue")
        # The same issue asked for again by its id (`mergedInto`, `issue`) is not read again.
        context.loaders.issue.prime(found.id, found)
        return Issue.of(found)

    @strawberry.field(
        description="Issues, oldest first, or most relevant first for a `filter.query`, "
        "unless `orderBy` says otherwise; `totalCount` counts what the filter matches."
    )
    async def issues(
        self,
        info: Info,
        first: int | None = None,
        after: str | None = None,
        filter: IssueFilter | None = None,
        order_by: Annotated[
            IssueOrder | None,
            strawberry.argument(
                description="Default: RELEVANCE with a `filter.query`, CREATED_AT_ASC "
                "otherwise. Another order lists a search's matches in that order."
            ),
        ] = None,
    ) -> Connection[Issue] | None:
        context = info.context
        request = PageRequest.of(first, after, info.context.cursors, "Issue")
        where = filter.to_domain() if filter else issues.IssueFilter()
        order = _DOMAIN_ORDER[order_by] if order_by is not None else None
        page = await issues.list_issues(context.db, context.workspace_id, request, where, order)
        return connection_of(
            info.context.cursors,
            page,
            [Issue.of(hit.issue) for hit in page.items],
            lambda: issues.count_issues(context.db, context.workspace_id, where),
            cursor_key=lambda hit: hit.position,
        )


def _optional_id(value: strawberry.ID | None) -> str | None:
    return None if value is None or value is strawberry.UNSET else str(value)


def _contact_or_none(contact: Any) -> Contact | None:
    return Contact.of(contact) if contact is not None else None


@strawberry.type
class IssueMutations:
    @strawberry.mutation(description="Open an issue; its body becomes the first message.")
    async def create_issue(self, info: Info, input: CreateIssueInput) -> CreateIssuePayload | None:
        context = info.context
        new = issues.NewIssue(
            subject=input.subject,
            body=input.body,
            requester_email=input.requester_email,
            requester_name=input.requester_name,
            priority=input.priority,
            idempotency_key=input.idempotency_key,
            attachment_ids=attachment_ids_of(input.attachment_ids),
        )

        async def action() -> dict[str, object]:
            issue = await issues.create_issue(context.db, context.actor, context.workspace_id, new)
            return {"issue": Issue.of(issue)}

        return await mutate(CreateIssuePayload, action)

    @strawberry.mutation(description="Change an issue's subject, status or priority.")
    async def update_issue(self, info: Info, input: UpdateIssueInput) -> UpdateIssuePayload | None:
        context = info.context

        async def action() -> dict[str, object]:
            issue = await issues.update_issue(
                context.db,
                context.actor,
                context.workspace_id,
                str(input.id),
                subject=input.subject,
                status=input.status,
                priority=input.priority,
            )
            return {"issue": Issue.of(issue)}

        return await mutate(UpdateIssuePayload, action)

    @strawberry.mutation(description="Reply as the key's machine user; optionally move the status.")
    async def reply_to_issue(
        self, info: Info, input: ReplyToIssueInput
    ) -> ReplyToIssuePayload | None:
        context = info.context
        principal = context.principal
        author = Actor("machine_user", principal.machine_user_id, principal.machine_user_name)

        async def action() -> dict[str, object]:
            issue, message = await issues.reply_to_issue(
                context.db,
                author,
                context.workspace_id,
                str(input.issue_id),
                input.body,
                input.status,
                attachment_ids_of(input.attachment_ids),
            )
            return {"issue": Issue.of(issue), "message": Message.of(message)}

        return await mutate(ReplyToIssuePayload, action)

    @strawberry.mutation(
        description="Merge a duplicate into another issue: its thread joins the target's in "
        "time order and it is closed, pointing at the target."
    )
    async def merge_issue(self, info: Info, input: MergeIssueInput) -> MergeIssuePayload | None:
        context = info.context

        async def action() -> dict[str, object]:
            source, target = await issues.merge_issue(
                context.db,
                context.actor,
                context.workspace_id,
                str(input.source_id),
                str(input.target_id),
            )
            return {"issue": Issue.of(target), "source": Issue.of(source)}

        return await mutate(MergeIssuePayload, action)

    @strawberry.mutation(
        description="Give an issue to a member or a machine user of the workspace, or to nobody."
    )
    async def assign_issue(self, info: Info, input: AssignIssueInput) -> AssignIssuePayload | None:
        context = info.context

        async def action() -> dict[str, object]:
            if input.assignee_id is strawberry.UNSET:
                raise DomainError(
                    ErrorCode.VALIDATION_FAILED,
                    "Invalid input: assigneeId.",
                    [FieldError("assigneeId", FieldCode.REQUIRED)],
                )
            issue = await issues.assign_issue(
                context.db,
                context.actor,
                context.workspace_id,
                str(input.issue_id),
                _optional_id(input.assignee_id),
            )
            return {"issue": Issue.of(issue)}

        return await mutate(AssignIssuePayload, action)

    @strawberry.mutation(description="Change up to 100 issues at once, all or nothing.")
    async def update_issues(
        self, info: Info, input: UpdateIssuesInput
    ) -> UpdateIssuesPayload | None:
        context = info.context

        async def action() -> dict[str, object]:
            changed = await issues.update_issues(
                context.db,
                context.actor,
                context.workspace_id,
                issues.BulkChange(
                    ids=[str(issue_id) for issue_id in input.ids],
                    status=input.status,
                    priority=input.priority,
                    add_label_ids=[str(label_id) for label_id in input.add_label_ids or ()],
                    remove_label_ids=[str(label_id) for label_id in input.remove_label_ids or ()],
                    assign=input.assignee_id is not strawberry.UNSET,
                    assignee_id=_optional_id(input.assignee_id),
                ),
            )
            context.loaders.labels_of_issue.clear_all()
            return {"issues": [Issue.of(issue) for issue in changed]}

        return await mutate(UpdateIssuesPayload, action)

    @strawberry.mutation(
        description="Add an internal note as the key's machine user; it changes no status."
    )
    async def add_note(self, info: Info, input: AddNoteInput) -> AddNotePayload | None:
        context = info.context
        principal = context.principal
        author = Actor("machine_user", principal.machine_user_id, principal.machine_user_name)

        async def action() -> dict[str, object]:
            issue, message = await issues.add_note(
                context.db,
                author,
                context.workspace_id,
                str(input.issue_id),
                input.body,
                attachment_ids_of(input.attachment_ids),
            )
            return {"issue": Issue.of(issue), "message": Message.of(message)}

        return await mutate(AddNotePayload, action)

    @strawberry.mutation(
        description="Add a public message written by the issue's requester (a chat widget, a"
        " portal, a bridge): channel `api`; it moves a solved or pending issue to open."
    )
    async def add_customer_message(
        self, info: Info, input: AddCustomerMessageInput
    ) -> AddCustomerMessagePayload | None:
        context = info.context

        async def action() -> dict[str, object]:
            issue, message = await issues.add_customer_message(
                context.db,
                context.actor,
                context.workspace_id,
                str(input.issue_id),
                input.body,
                attachment_ids_of(input.attachment_ids),
            )
            return {"issue": Issue.of(issue), "message": Message.of(message)}

        return await mutate(AddCustomerMessagePayload, action)
