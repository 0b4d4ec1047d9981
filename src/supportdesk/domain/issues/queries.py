"""Reading issues and their threads. Every read is one statement, whatever the page size.

The statements of the hot reads are built once, with bound parameters (`db.reads.Read`):
building a Select and computing its cache key on every call costs more than running it.
`fetch_*` run them straight on the driver (`Database.fetch`), whatever the number of ids.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Collection, Hashable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Join,
    Select,
    and_,
    bindparam,
    func,
    literal,
    or_,
    select,
    tuple_,
)

from supportdesk.db import Database
from supportdesk.db.kept import Kept
from supportdesk.db.reads import Read, in_ids
from supportdesk.db.search import Search
from supportdesk.db.tables import contacts, issue_labels, issues, messages
from supportdesk.domain.errors import InvalidArgument
from supportdesk.domain.full_text import relevance_key, relevance_position, search_words
from supportdesk.domain.issues.models import (
    ISSUE_COLUMNS,
    MESSAGE_COLUMNS,
    Issue,
    IssueFilter,
    IssueHit,
    IssueOrder,
    Message,
    issue_at_start_of,
    issue_of,
    message_of,
)
from supportdesk.domain.issues.search import ISSUE_SEARCH
from supportdesk.domain.issues.workflow import PRIORITIES, STATUSES
from supportdesk.domain.labels.models import MAX_LABELS_PER_ISSUE
from supportdesk.domain.lists import ListQuery, count_of, page_limit, workspace_condition
from supportdesk.domain.pagination import Page, PageRequest, page_of
from supportdesk.domain.per_parent import ChildCounts, ChildPages, in_workspace

_IN_WORKSPACE = issues.c.workspace_id == bindparam("workspace_id")
_ISSUES = Read(select(*ISSUE_COLUMNS).where(_IN_WORKSPACE, in_ids(issues.c.id, "ids")), issue_of)
_ISSUE_BY_NUMBER = Read(
    select(*ISSUE_COLUMNS).where(
        _IN_WORKSPACE, issues.c.ticket_number == bindparam("ticket_number")
    ),
    issue_of,
)


async def fetch_issues(db: Database, workspace_id: str, ids: Sequence[str]) -> dict[str, Issue]:
    """Issues by id, one statement for any number of them."""
    found = await db.fetch(_ISSUES, workspace_id=workspace_id, ids=list(ids))
    return {issue.id: issue for issue in found}


# Ticket numbers are 32-bit integers in the database: a larger one names no issue (and
# would overflow the driver's parameter, a 500 instead of "not found").
LARGEST_TICKET_NUMBER = 2**31 - 1


async def fetch_issue_by_number(
    db: Database, workspace_id: str, ticket_number: int
) -> Issue | None:
    if not 0 < ticket_number <= LARGEST_TICKET_NUMBER:
        return None
    found = await db.fetch(_ISSUE_BY_NUMBER, workspace_id=workspace_id, ticket_number=ticket_number)
    return found[0] if found else None


def _search(workspace_id: str, where: IssueFilter) -> Search | None:
    """The full-text search the filter asks for; None when its query holds no word."""
    words = search_words(where.query)
    return ISSUE_SEARCH.search(workspace_id, words) if words else None


def _filter_values(workspace_id: str, where: IssueFilter) -> tuple[dict[str, Any], str | None]:
    """The filter's values by the names `_filtered` binds them as (their names are the
    filter's shape), and the condition it adds without a value: `unassigned`, `assigned`, or `none`
    when no issue can match. Raises InvalidArgument for a filter that cannot be asked."""
    unknown = sorted(set(where.statuses) - set(STATUSES)) + sorted(
        set(where.priorities) - set(PRIORITIES)
    )
    if unknown:
        raise InvalidArgument(f"Unknown status or priority in the filter: {', '.join(unknown)}.")
    if where.assignee_id is not None and where.unassigned is True:
        raise InvalidArgument("Ask for `assigneeId` or for `unassigned`, not both.")
    values: dict[str, Any] = {"workspace_id": workspace_id}
    if where.statuses:
        values["list_statuses"] = list(where.statuses)
    if where.priorities:
        values["list_priorities"] = list(where.priorities)
    if where.requester_email is not None:
        values["list_requester_email"] = where.requester_email.strip().lower()
    for name, _, _ in _BOUNDS:
        if (value := getattr(where, name)) is not None:
            values[f"list_{name}"] = value
    if where.assignee_id is not None:
        values["list_assignee_id"] = where.assignee_id
    wanted_labels = list(dict.fromkeys(where.label_ids))
    if len(wanted_labels) > MAX_LABELS_PER_ISSUE:
        return values, "none"  # no issue carries that many
    for index, label_id in enumerate(wanted_labels):
        values[f"list_label_{index}"] = label_id
    if where.unassigned is None:
        return values, None
    return values, "unassigned" if where.unassigned else "assigned"


# The filter's bounds on a column: its field, the column, and how the column compares.
_BOUNDS: tuple[tuple[str, ColumnElement[Any], Callable[[Any, Any], Any]], ...] = (
    ("created_after", issues.c.created_at, operator.ge),
    ("created_before", issues.c.created_at, operator.lt),
    ("updated_after", issues.c.updated_at, operator.gt),
    ("updated_before", issues.c.updated_at, operator.lt),
)


def _filtered(
    query: Select[Any],
    names: Collection[str],
    flag: str | None,
    search: tuple[Search, str] | None = None,
) -> Select[Any]:
    """`query` limited to the issues a filter of these value names (and flag) matches, the
    values bound by those names; `search`: the search and its workspace."""
    if search is None:
        query = query.where(workspace_condition(issues.c.workspace_id))
    else:
        # The workspace written into the statement, not bound: PostgreSQL plans a prepared
        # statement once for every value after five runs, and a search's best plan depends
        # on the workspace's size (a small one: its rows that the index matches; a large
        # one: the index's matches, then its own). Written in, each workspace's search is
        # planned for that workspace.
        found, workspace_id = search
        written_in = literal(workspace_id, issues.c.workspace_id.type, literal_execute=True)
        query = query.where(issues.c.workspace_id == written_in)
        query = query.select_from(found.source).where(found.condition)
    if "list_statuses" in names:
        query = query.where(in_ids(issues.c.status, "list_statuses"))
    if "list_priorities" in names:
        query = query.where(in_ids(issues.c.priority, "list_priorities"))
    if "list_requester_email" in names:
        query = query.where(
            issues.c.requester_id.in_(
                select(contacts.c.id).where(
                    contacts.c.workspace_id == bindparam("workspace_id"),
                    contacts.c.email_normalized == bindparam("list_requester_email"),
                )
            )
        )
    for name, column, compare in _BOUNDS:
        if f"list_{name}" in names:
            query = query.where(compare(column, bindparam(f"list_{name}", type_=column.type)))
    if "list_assignee_id" in names:
        query = query.where(issues.c.assignee_id == bindparam("list_assignee_id"))
    if flag == "unassigned":
        query = query.where(issues.c.assignee_id.is_(None))
    if flag == "assigned":
        query = query.where(issues.c.assignee_id.is_not(None))
    if flag == "none":
        # Not false(): SQLAlchemy would fold the workspace's condition into it and drop it
        # from the statement.
        return query.where(issues.c.id.is_(None))
    for name in names:
        if name.startswith("list_label_"):
            query = query.where(
                issues.c.id.in_(
                    select(issue_labels.c.issue_id).where(
                        issue_labels.c.workspace_id == bindparam("workspace_id"),
                        issue_labels.c.label_id == bindparam(name),
                    )
                )
            )
    return query


def list_order(where: IssueFilter, order: IssueOrder | None) -> IssueOrder:
    """The order the list is read in: the one asked for; without one, relevance for a
    search and creation otherwise. Relevance without a word to search is creation order:
    every issue is then as relevant as any other."""
    if order not in (None, IssueOrder.RELEVANCE):
        return order
    return IssueOrder.RELEVANCE if search_words(where.query) else IssueOrder.CREATED_ASC


_NOT_OURS = "`after` is not a cursor of this list in this order."
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)
# The kind of position an update-order cursor holds: `<kind>:<updatedAt in µs>:<id>`. The
# kind names the order, so that a cursor is refused by an order it was not made in.
_UPDATED_KIND = {IssueOrder.UPDATED_ASC: "ua", IssueOrder.UPDATED_DESC: "ud"}
_DESCENDING = frozenset({IssueOrder.CREATED_DESC, IssueOrder.UPDATED_DESC})


def cursor_key(issue: Issue, order: IssueOrder) -> str:
    """What the next page of the list in `order` continues after: the issue's id in
    creation order (ids sort as creation time, then id), its updatedAt and id in update
    order. (Relevance order: `relevance_key`, from the search's score.)"""
    kind = _UPDATED_KIND.get(order)
    if kind is None:
        return issue.id
    return f"{kind}:{(issue.updated_at - _EPOCH) // _MICROSECOND}:{issue.id}"


def _updated_position(key: str, order: IssueOrder) -> tuple[datetime, str]:
    """(updatedAt, id) from an update-order cursor's key made in `order`."""
    kind, _, rest = key.partition(":")
    microseconds, _, issue_id = rest.partition(":")
    if kind != _UPDATED_KIND[order] or not issue_id or not microseconds.isdecimal():
        raise InvalidArgument(_NOT_OURS)
    try:
        return _EPOCH + int(microseconds) * _MICROSECOND, issue_id
    except OverflowError:
        raise InvalidArgument(_NOT_OURS) from None


def _past_cursor(
    key: str, order: IssueOrder, where: IssueFilter
) -> tuple[str | None, dict[str, Any]]:
    """The position past which the page is read, by the names `_past` binds it as, and the
    filter's value the page reads without. In update order one of the cursor and the
    filter's bound on that side (updatedAfter ascending, updatedBefore descending) implies
    the other, and only the tighter one is kept: SQLite bounds each side of an index range
    with one condition."""
    if order not in _UPDATED_KIND:
        if ":" in key:  # a position of another order
            raise InvalidArgument(_NOT_OURS)
        return None, {"list_after_id": key}
    moment, issue_id = _updated_position(key, order)
    position = {"list_after_updated_at": moment, "list_after_id": issue_id}
    if order in _DESCENDING:
        if where.updated_before is not None and where.updated_before <= moment:
            return None, {}
        return "list_updated_before", position
    if where.updated_after is not None and where.updated_after >= moment:
        return None, {}
    return "list_updated_after", position


def _past(order: IssueOrder, names: Collection[str]) -> ColumnElement[bool] | None:
    """The rows past the bound position, in the list's order."""
    if "list_after_id" not in names:
        return None
    after = bindparam("list_after_id", type_=issues.c.id.type)
    if "list_after_updated_at" not in names:
        return issues.c.id < after if order in _DESCENDING else issues.c.id > after
    # A row value, so that the scan of ix_issues_updated starts at the cursor.
    position = tuple_(issues.c.updated_at, issues.c.id)
    moment = bindparam("list_after_updated_at", type_=issues.c.updated_at.type)
    return (
        position < tuple_(moment, after)
        if order in _DESCENDING
        else position > tuple_(moment, after)
    )


def _page(
    order: IssueOrder,
    page: PageRequest,
    names: Collection[str],
    flag: str | None,
    search: tuple[Search, str] | None = None,
) -> Select[Any]:
    """One page of the list in `order` (plus one row that says whether there is more)."""
    query = _filtered(select(*ISSUE_COLUMNS), names, flag, search)
    past = _past(order, names)
    if past is not None:
        query = query.where(past)
    keys = (issues.c.updated_at, issues.c.id) if order in _UPDATED_KIND else (issues.c.id,)
    ordered = [key.desc() for key in keys] if order in _DESCENDING else keys
    return query.order_by(*ordered).limit(page_limit(page))


def _count(
    names: Collection[str], flag: str | None, search: tuple[Search, str] | None = None
) -> Select[Any]:
    return _filtered(select(func.count()).select_from(issues), names, flag, search)


def _ranked(
    page: PageRequest, names: Collection[str], flag: str | None, search: tuple[Search, str]
) -> Select[Any]:
    """A page of the search's matches, most relevant first, then oldest first; each row
    is ISSUE_COLUMNS and the score."""
    found = search[0]
    scored = _filtered(
        select(*ISSUE_COLUMNS, found.score.label("score")), names, flag, search
    ).subquery("scored")
    ranked = select(scored)
    if page.after:
        score, issue_id = relevance_position(page.after, _NOT_OURS)
        ranked = ranked.where(
            or_(scored.c.score < score, and_(scored.c.score == score, scored.c.id > issue_id))
        )
    return ranked.order_by(scored.c.score.desc(), scored.c.id).limit(page_limit(page))


# Each shape's page and count (`list_query`); shapes are few: which filters are set, the
# number of labels asked for, the order, whether a cursor is given and the page's size.
_SHAPES: Kept[Hashable, tuple[Select[Any], Select[Any]]] = Kept(256)


def list_query(
    workspace_id: str, page: PageRequest, where: IssueFilter, order: IssueOrder | None
) -> ListQuery:
    """One page of the issue list (plus one row that says whether there is more), in
    `list_order`, and the count of the issues the filter matches. Update order reads
    ix_issues_updated (workspace_id, updated_at, id); relevance order scores every match
    (db/search.py). Raises InvalidArgument for a filter or cursor that cannot be asked."""
    order = list_order(where, order)
    values, flag = _filter_values(workspace_id, where)
    counted = tuple(values)
    dropped: str | None = None
    past: dict[str, Any] = {}
    if page.after and order is not IssueOrder.RELEVANCE:
        dropped, past = _past_cursor(page.after, order, where)
    paged = tuple(name for name in counted if name != dropped) + tuple(past)
    values = {**values, **past}
    found = _search(workspace_id, where)
    if found is not None:  # its words are in its SQL: built for this request alone
        search = (found, workspace_id)
        if order is IssueOrder.RELEVANCE:
            return ListQuery(
                lambda: _ranked(page, counted, flag, search),
                lambda: _count(counted, flag, search),
                values,
            )
        return ListQuery(
            lambda: _page(order, page, paged, flag, search),
            lambda: _count(counted, flag, search),
            values,
        )
    shape = (order, paged, counted, flag, page.first)
    rows, count = _SHAPES.get(
        shape, lambda: (_page(order, page, paged, flag), _count(counted, flag))
    )
    return ListQuery(lambda: rows, lambda: count, values, shape)


async def list_issues(
    db: Database,
    workspace_id: str,
    page: PageRequest,
    where: IssueFilter,
    order: IssueOrder | None = None,
) -> Page[IssueHit]:
    """One page of the issues `where` matches, in `list_order`: by creation (id), by
    updatedAt then id, or for a search by relevance then creation. Pages continue after
    the position of the last issue of the previous page, so paging never repeats nor skips
    an issue that stays put.

    A search's relevance moves when an issue's subject or thread does: a changed issue may
    then be read twice, or not at all, by a walk through the pages.

    Update order moves issues while a client pages. In UPDATED_AT_ASC an issue changed
    meanwhile leaves its place for the end of the list: one already read is read again
    there, one not yet reached is read once, in its new state; nothing is skipped. Likewise
    a poller that asks for `updatedAfter` the last updatedAt it saw (or continues after its
    last cursor) gets an issue it saw again once it changes: that is what it polls for. In
    UPDATED_AT_DESC a changed issue jumps to the front, behind the cursor, so a walk may
    miss it: poll in ascending order.
    """
    order = list_order(where, order)
    query = list_query(workspace_id, page, where, order)
    async with db.read() as connection:
        rows = (await connection.execute(query.rows, query.values)).all()
    if order is IssueOrder.RELEVANCE:
        hits = [
            IssueHit(issue_at_start_of(row), relevance_key(float(row[-1]), row[0])) for row in rows
        ]
    else:
        hits = [IssueHit(issue, cursor_key(issue, order)) for issue in map(issue_of, rows)]
    return page_of(hits, page.first)


async def count_issues(db: Database, workspace_id: str, where: IssueFilter) -> int:
    """How many issues the filter (and search) matches."""
    return await count_of(db, list_query(workspace_id, PageRequest(0, None), where, None))


# Each built once for whole threads, and once for the messages of one visibility.
_THREADS = {
    of_visibility: ChildPages(
        select(*MESSAGE_COLUMNS).where(
            *in_workspace(messages, messages.c.visibility if of_visibility else None)
        ),
        messages.c.issue_id,
        messages.c.id,
        message_of,
    )
    for of_visibility in (False, True)
}
# Whole threads are counted by the issue's stored message_count.
_COUNT_OF_VISIBILITY = ChildCounts(
    messages, messages.c.issue_id, *in_workspace(messages, messages.c.visibility)
)


def _visibility_parameters(workspace_id: str, visibility: str | None) -> dict[str, str]:
    found = {"workspace_id": workspace_id}
    if visibility is not None:
        found["visibility"] = visibility
    return found


async def fetch_threads(
    db: Database,
    workspace_id: str,
    issue_ids: Sequence[str],
    page: PageRequest,
    visibility: str | None = None,
) -> dict[str, Page[Message]]:
    """The same page of each issue's thread (or of its messages of one visibility), oldest
    first, in one statement."""
    threads = _THREADS[visibility is not None]
    return await threads.fetch(
        db, issue_ids, page, **_visibility_parameters(workspace_id, visibility)
    )


async def count_messages_of_visibility(
    db: Database, workspace_id: str, issue_ids: Sequence[str], visibility: str
) -> dict[str, int]:
    """How many messages of this visibility each issue has, in one statement."""
    return await _COUNT_OF_VISIBILITY.fetch(
        db, issue_ids, **_visibility_parameters(workspace_id, visibility)
    )


async def get_messages(db: Database, workspace_id: str, ids: Sequence[str]) -> dict[str, Message]:
    query = select(*MESSAGE_COLUMNS).where(
        messages.c.workspace_id == workspace_id, messages.c.id.in_(ids)
    )
    async with db.read() as connection:
        return {row[0]: message_of(row) for row in await connection.execute(query)}


def _issues_with_requesters() -> Join:
    """Issues joined to their requesters, for issues per account."""
    return issues.join(
        contacts,
        and_(
            contacts.c.workspace_id == issues.c.workspace_id, contacts.c.id == issues.c.requester_id
        ),
    )


_OF_CONTACTS = ChildPages(
    select(*ISSUE_COLUMNS).where(_IN_WORKSPACE), issues.c.requester_id, issues.c.id, issue_of
)
_COUNT_OF_CONTACTS = ChildCounts(issues, issues.c.requester_id, _IN_WORKSPACE)
# An issue belongs to the account its requester belongs to now.
_OF_ACCOUNTS = ChildPages(
    select(*ISSUE_COLUMNS).select_from(_issues_with_requesters()).where(_IN_WORKSPACE),
    contacts.c.account_id,
    issues.c.id,
    issue_of,
)
_COUNT_OF_ACCOUNTS = ChildCounts(_issues_with_requesters(), contacts.c.account_id, _IN_WORKSPACE)


async def issues_of_contacts(
    db: Database, workspace_id: str, contact_ids: Sequence[str], page: PageRequest
) -> dict[str, Page[Issue]]:
    """The same page of each contact's issues (as requester), oldest first, in one statement."""
    return await _OF_CONTACTS.fetch(db, contact_ids, page, workspace_id=workspace_id)


async def count_issues_of_contacts(
    db: Database, workspace_id: str, contact_ids: Sequence[str]
) -> dict[str, int]:
    return await _COUNT_OF_CONTACTS.fetch(db, contact_ids, workspace_id=workspace_id)


async def issues_of_accounts(
    db: Database, workspace_id: str, account_ids: Sequence[str], page: PageRequest
) -> dict[str, Page[Issue]]:
    """The same page of the issues each account's contacts asked, oldest first, in one
    statement."""
    return await _OF_ACCOUNTS.fetch(db, account_ids, page, workspace_id=workspace_id)


async def count_issues_of_accounts(
    db: Database, workspace_id: str, account_ids: Sequence[str]
) -> dict[str, int]:
    return await _COUNT_OF_ACCOUNTS.fetch(db, account_ids, workspace_id=workspace_id)


# Each shape's count of at most a given number of matches (`count_issues_up_to`).
_CAPPED: Kept[Hashable, Select[Any]] = Kept(64)


async def count_issues_up_to(
    db: Database, workspace_id: str, where: IssueFilter, limit: int
) -> int:
    """How many issues the filter matches, counted no further than `limit` + 1: the
    count's cost stays that of `limit` rows however large the workspace (a queue's view
    shows "1,000+" past it). Reads the first rows of the list in creation order."""
    query = list_query(workspace_id, PageRequest(limit, None), where, IssueOrder.CREATED_ASC)

    def capped() -> Select[Any]:
        return select(func.count()).select_from(query.rows.subquery("capped"))

    statement = capped() if query.shape is None else _CAPPED.get(query.shape, capped)
    async with db.read() as connection:
        return int(await connection.scalar(statement, query.values) or 0)
