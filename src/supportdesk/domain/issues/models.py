"""Issues and their messages, as the rest of the service sees them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from datetime import datetime
from enum import Enum
from typing import Any

from supportdesk.db.tables import issues, messages


@dataclass(frozen=True, slots=True)
class Issue:
    id: str
    workspace_id: str
    ticket_number: int
    subject: str
    status: str
    priority: str
    requester_id: str
    message_count: int
    created_at: datetime
    updated_at: datetime
    merged_into: str | None = None
    # `member` or `machine_user`, and its id; both None when nobody works on it.
    assignee_type: str | None = None
    assignee_id: str | None = None


# A message's visibility: replies and first messages are public; a note is internal.
PUBLIC = "public"
INTERNAL = "internal"
VISIBILITIES = (PUBLIC, INTERNAL)


@dataclass(frozen=True, slots=True)
class Message:
    id: str
    workspace_id: str
    issue_id: str
    sender_name: str
    body: str
    author_type: str
    author_id: str
    visibility: str
    created_at: datetime
    # "api", "inbox" or "email" (docs/email.md).
    channel: str = "api"


# Where a message came from.
API = "api"
INBOX = "inbox"
EMAIL = "email"


@dataclass(frozen=True, slots=True)
class IssueFilter:
    statuses: tuple[str, ...] = ()
    priorities: tuple[str, ...] = ()
    requester_email: str | None = None
    created_after: datetime | None = None
    created_before: datetime | None = None
    updated_after: datetime | None = None
    updated_before: datetime | None = None
    # Issues carrying every one of these labels.
    label_ids: tuple[str, ...] = ()
    # Issues assigned to this member or machine user; `unassigned`: to nobody (True) or to
    # someone (False).
    assignee_id: str | None = None
    unassigned: bool | None = None
    # Full-text search: issues whose subject and messages (notes too) hold every word.
    query: str | None = None


class IssueOrder(Enum):
    """The orders of the issue list, each a keyset: creation order on the id (ids sort as
    creation time), update order on (updated_at, id), relevance to a search on (relevance,
    id). A cursor of one order is refused by every other."""

    CREATED_ASC = "created_asc"
    CREATED_DESC = "created_desc"
    UPDATED_ASC = "updated_asc"
    UPDATED_DESC = "updated_desc"
    RELEVANCE = "relevance"


@dataclass(frozen=True, slots=True)
class IssueHit:
    """An issue in a list, and its position in the list's order: what the cursor of the
    next page holds."""

    issue: Issue
    position: str

    @property
    def id(self) -> str:
        return self.issue.id


ISSUE_COLUMNS = (
    issues.c.id,
    issues.c.workspace_id,
    issues.c.ticket_number,
    issues.c.subject,
    issues.c.status,
    issues.c.priority,
    issues.c.requester_id,
    issues.c.message_count,
    issues.c.created_at,
    issues.c.updated_at,
    issues.c.merged_into,
    issues.c.assignee_type,
    issues.c.assignee_id,
)

MESSAGE_COLUMNS = (
    messages.c.id,
    messages.c.workspace_id,
    messages.c.issue_id,
    messages.c.sender_name,
    messages.c.body,
    messages.c.author_type,
    messages.c.author_id,
    messages.c.visibility,
    messages.c.created_at,
    messages.c.channel,
)


# Rows are read by position (cheaper than by name on every read): the columns above are
# in the order of the dataclasses' fields, and this says so at import time.
assert [c.name for c in ISSUE_COLUMNS] == [f.name for f in fields(Issue)]
assert [c.name for c in MESSAGE_COLUMNS] == [f.name for f in fields(Message)]
_MESSAGE_WIDTH = len(MESSAGE_COLUMNS)


_ISSUE_WIDTH = len(ISSUE_COLUMNS)


def issue_of(row: Sequence[Any]) -> Issue:
    """An Issue from a row that is ISSUE_COLUMNS."""
    return Issue(*row)


def issue_at_start_of(row: Sequence[Any]) -> Issue:
    """An Issue from a row that starts with ISSUE_COLUMNS (extra columns are ignored)."""
    return Issue(*row[:_ISSUE_WIDTH])


def message_of(row: Sequence[Any]) -> Message:
    """A Message from a row that starts with MESSAGE_COLUMNS (extra columns are ignored)."""
    return Message(*row[:_MESSAGE_WIDTH])
