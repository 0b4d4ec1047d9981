"""The rows of the queue: a page of issues, keyset-paged newest activity first (or by
relevance for a search), with each issue's requester, assignee and labels. Each piece is
one read whatever the page's size: the issues, their requesters, their labels, and the
assignees the page's member list does not already name."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from supportdesk.db import Database
from supportdesk.domain.contacts.service import Contact, get_contacts
from supportdesk.domain.issues import Issue, IssueFilter, IssueHit, IssueOrder, list_issues
from supportdesk.domain.issues.queries import cursor_key
from supportdesk.domain.labels.models import Label
from supportdesk.domain.labels.queries import labels_of_issues
from supportdesk.domain.members.people import get_people
from supportdesk.domain.pagination import Cursors, PageRequest

PAGE_SIZE = 50


@dataclass(frozen=True, slots=True)
class QueueRow:
    issue: Issue
    requester: Contact | None
    assignee: str | None  # the assignee's name, None when unassigned
    labels: list[Label]


@dataclass(slots=True)
class QueueRows:
    rows: list[QueueRow] = field(default_factory=list)
    # Cursors of the pages either side, signed as the API signs its own ("" when none).
    after: str = ""
    before: str = ""
    # Whether this page is not the first: the first page is always one link away.
    later: bool = False


async def _page_of_hits(
    db: Database,
    workspace_id: str,
    where: IssueFilter,
    cursors: Cursors,
    after: str,
    before: str,
) -> tuple[list[IssueHit], bool, bool, bool]:
    """The hits of the page, whether pages follow, whether pages precede, and whether the
    page is not the first. `before` (activity order only) reads backwards: the oldest
    activity first after the first row of the page that follows, then turned round.
    Raises InvalidArgument for a cursor that is not ours."""
    by_relevance = bool(where.query and where.query.strip())
    if before and not by_relevance:
        back = await list_issues(
            db,
            workspace_id,
            PageRequest(PAGE_SIZE, cursors.decode(before, "Issue")),
            where,
            IssueOrder.UPDATED_ASC,
        )
        if back.has_next:
            return list(reversed(back.items)), True, True, True
        after = ""  # back at the start: read the first page as it stands
    key = cursors.decode(after, "Issue") if after else None
    order = IssueOrder.RELEVANCE if by_relevance else IssueOrder.UPDATED_DESC
    found = await list_issues(db, workspace_id, PageRequest(PAGE_SIZE, key), where, order)
    # Relevance is read forward only: a later page of a search offers the first again.
    return found.items, found.has_next, bool(key) and not by_relevance, bool(key)


async def read_rows(
    db: Database,
    workspace_id: str,
    where: IssueFilter | None,
    cursors: Cursors,
    names: Mapping[str, str],
    *,
    after: str = "",
    before: str = "",
) -> QueueRows:
    """One page of the queue; `names`: the people already known by id (the workspace's
    members), so that only other assignees are read."""
    if where is None:
        return QueueRows()
    hits, more, earlier, later = await _page_of_hits(
        db, workspace_id, where, cursors, after, before
    )
    issues = [hit.issue for hit in hits]
    return QueueRows(
        await _rows_of(db, workspace_id, issues, names),
        after=cursors.encode(hits[-1].position) if hits and more else "",
        before=(
            cursors.encode(cursor_key(issues[0], IssueOrder.UPDATED_ASC))
            if issues and earlier
            else ""
        ),
        later=later,
    )


async def _rows_of(
    db: Database, workspace_id: str, issues: Sequence[Issue], names: Mapping[str, str]
) -> list[QueueRow]:
    if not issues:
        return []
    requesters = await get_contacts(db, workspace_id, list({i.requester_id for i in issues}))
    labels = await labels_of_issues(db, workspace_id, [issue.id for issue in issues])
    unnamed = {i.assignee_id for i in issues if i.assignee_id and i.assignee_id not in names}
    people = {**names}
    if unnamed:  # machine users, or members removed since
        found = await get_people(db, workspace_id, sorted(unnamed))
        people |= {person_id: person.name for person_id, person in found.items()}
    return [
        QueueRow(
            issue,
            requesters.get(issue.requester_id),
            people.get(issue.assignee_id, "Someone removed") if issue.assignee_id else None,
            labels.get(issue.id, []),
        )
        for issue in issues
    ]
