"""What the issue page shows, read through the domain's queries: the issue, its whole
thread with each message's author, files and e-mail side, the requester and their account, the
workspace's labels and members for the controls."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from supportdesk.db import Database
from supportdesk.domain import attachments, issues, labels, members
from supportdesk.domain.accounts.models import Account
from supportdesk.domain.accounts.queries import get_accounts
from supportdesk.domain.contacts import Contact
from supportdesk.domain.contacts.service import get_contacts
from supportdesk.domain.email.message_emails import MessageEmail, emails_of_messages
from supportdesk.domain.pagination import MAX_PAGE_SIZE, PageRequest

# How each kind of author is introduced beside its name.
AUTHOR_KINDS = {"member": "Agent", "machine_user": "API", "contact": "Customer"}
# How the mail of a reply is shown, by its status.
MAIL_STATES = {"queued": "E-mail queued", "sent": "E-mailed", "failed": "E-mail failed"}


@dataclass(frozen=True, slots=True)
class Entry:
    """One message of the thread as the page shows it."""

    message: issues.Message
    author_name: str
    author_kind: str
    files: list[attachments.Attachment]
    # Came after the view the writer had when their reply was held.
    is_new: bool = False
    # Mail received, or the mail of a reply (queued, sent or failed); None for neither.
    email: MessageEmail | None = None

    @property
    def is_note(self) -> bool:
        return self.message.visibility == "internal"

    @property
    def mail_state(self) -> str:
        """What became of a reply's mail, in words."""
        return MAIL_STATES.get(self.email.status, "E-mail") if self.email else ""


@dataclass(slots=True)
class IssueView:
    issue: issues.Issue
    thread: list[Entry]
    requester: Contact | None
    account: Account | None
    assignee_name: str | None
    carried: list[labels.Label]
    all_labels: list[labels.Label]
    people: list[members.Member]
    merged_into_number: int | None = None
    newer_ids: set[str] = field(default_factory=set)

    @property
    def seen_up_to(self) -> str:
        """The newest message shown: a reply sent from this view is held if a newer came."""
        return self.thread[-1].message.id if self.thread else ""

    @property
    def carried_ids(self) -> set[str]:
        return {label.id for label in self.carried}


async def _whole_thread(db: Database, workspace_id: str, issue_id: str) -> list[issues.Message]:
    found: list[issues.Message] = []
    after = None
    while True:
        pages = await issues.fetch_threads(
            db, workspace_id, [issue_id], PageRequest(MAX_PAGE_SIZE, after)
        )
        batch = pages[issue_id]
        found.extend(batch.items)
        if not batch.has_next:
            return found
        after = batch.items[-1].id


def _ids_of(thread: Sequence[issues.Message], kind: str) -> list[str]:
    return list({m.author_id for m in thread if m.author_type == kind and m.author_id})


def _contact_name(contact: Contact) -> str:
    return contact.name or contact.email


async def issue_view(
    db: Database, workspace_id: str, ticket_number: int, newer_ids: Sequence[str] = ()
) -> IssueView | None:
    """The page's view of the issue with this ticket number; None when there is none."""
    issue = await issues.fetch_issue_by_number(db, workspace_id, ticket_number)
    if issue is None:
        return None
    thread = await _whole_thread(db, workspace_id, issue.id)
    message_ids = [m.id for m in thread]
    files = await attachments.attachments_of_messages(db, workspace_id, message_ids)
    emails = await emails_of_messages(db, workspace_id, message_ids)
    person_ids = _ids_of(thread, "member") + _ids_of(thread, "machine_user")
    if issue.assignee_id:
        person_ids.append(issue.assignee_id)
    people_by_id = await members.get_people(db, workspace_id, person_ids)
    contacts = await get_contacts(
        db, workspace_id, [*_ids_of(thread, "contact"), issue.requester_id]
    )
    requester = contacts.get(issue.requester_id)
    account = None
    if requester is not None and requester.account_id:
        account = (await get_accounts(db, workspace_id, [requester.account_id])).get(
            requester.account_id
        )
    carried = (await labels.labels_of_issues(db, workspace_id, [issue.id]))[issue.id]
    merged_into_number = None
    if issue.merged_into:
        target = (await issues.fetch_issues(db, workspace_id, [issue.merged_into])).get(
            issue.merged_into
        )
        merged_into_number = target.ticket_number if target else None
    newer = set(newer_ids)

    def entry(message: issues.Message) -> Entry:
        if message.author_type == "contact" and message.author_id in contacts:
            name = _contact_name(contacts[message.author_id])
        elif message.author_id in people_by_id:
            name = people_by_id[message.author_id].name
        else:
            name = message.sender_name
        kind = AUTHOR_KINDS.get(message.author_type, "")
        return Entry(
            message, name, kind, files[message.id], message.id in newer, emails[message.id]
        )

    assignee = people_by_id.get(issue.assignee_id or "")
    return IssueView(
        issue=issue,
        thread=[entry(message) for message in thread],
        requester=requester,
        account=account,
        assignee_name=assignee.name if assignee else None,
        carried=carried,
        all_labels=await labels.labels_by_name(db, workspace_id),
        people=await members.members_by_name(db, workspace_id),
        merged_into_number=merged_into_number,
        newer_ids=newer,
    )
