"""The agent inbox's queue at /inbox/ (docs/inbox.md): the views with their counts,
filters, search, saved views, keyset pages of 50 and bulk changes. Every change calls the
domain's actions with the member as the actor, as the API does with its keys.

The rows alone (`?partial=rows`, or an htmx request aimed at `#queue-rows`) are what a
live updater refreshes: see templates/inbox/_queue_rows.html."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

from starlette.responses import Response

from supportdesk.domain import saved_views
from supportdesk.domain.errors import DomainError, ErrorCode, FieldCode, InvalidArgument
from supportdesk.domain.issues import BulkChange, count_issues_up_to, fetch_issues, update_issues
from supportdesk.domain.issues.workflow import PRIORITIES, STATUSES, TRANSITIONS
from supportdesk.domain.labels.queries import list_labels
from supportdesk.domain.members.queries import list_members
from supportdesk.web.endpoint import Page, redirect
from supportdesk.web.member_actor import member_actor
from supportdesk.web.pages.issue_page import explained
from supportdesk.web.pages.live import live_url
from supportdesk.web.queue import FILTER_NAMES, VIEWS, QueueQuery, view_filter
from supportdesk.web.queue_rows import QueueRows, read_rows

ROWS_TARGET = "queue-rows"
# A view counts its issues up to here and shows "1,000+" beyond: the count then costs the
# same in a workspace of a thousand issues as in one of a million.
VIEW_COUNT_LIMIT = 1000
_BAD_PAGE = (
    "That page of the queue cannot be shown: its link is not one this inbox made. "
    "Start again from the first page."
)


def _wants_rows(page: Page) -> bool:
    headers = page.request.headers
    return page.request.query_params.get("partial") == "rows" or (
        headers.get("hx-request") == "true" and headers.get("hx-target") == ROWS_TARGET
    )


async def _read(page: Page, query: QueueQuery, names: dict[str, str]) -> QueueRows:
    return await read_rows(
        page.db,
        page.workspace_id,
        query.issue_filter(page.me.admin.id),
        await page.cursors(),
        names,
        after=query.after,
        before=query.before,
    )


async def _people(page: Page) -> dict[str, str]:
    """The workspace's members by id, with the names the queue shows."""
    return {member.id: member.name or member.email for member in await page.every(list_members)}


def rows_url(query: QueueQuery) -> str:
    """The address the table's body refreshes itself from: this page, rows only."""
    url = query.url(after=query.after, before=query.before)
    return url + ("&" if "?" in url else "?") + "partial=rows"


async def queue(page: Page) -> Response:
    query = QueueQuery.of(page.request.query_params)
    try:
        if page.request.query_params.get("partial") == "counts":
            # The views' counts refresh beside the rows on the live stream.
            counts = await _counts(page)
            return page.render("inbox/_view_counts.html", query=query, views=VIEWS, counts=counts)
        if _wants_rows(page):
            rows = await _read(page, query, await _people(page))
            return page.render("inbox/_queue_rows.html", query=query, page_rows=rows)
        return await _queue_page(page, query)
    except InvalidArgument:
        return page.problem(400, "This page cannot be shown", _BAD_PAGE)


def _count_text(count: int) -> str:
    return f"{VIEW_COUNT_LIMIT:,}+" if count > VIEW_COUNT_LIMIT else f"{count:,}"


async def _counts(page: Page) -> dict[str, str]:
    """Each view's count, as the queue shows it."""
    me = page.me.admin
    counts = {
        view.key: await count_issues_up_to(
            page.db, page.workspace_id, view_filter(view, me.id), VIEW_COUNT_LIMIT
        )
        for view in VIEWS
    }
    return {key: _count_text(count) for key, count in counts.items()}


async def _queue_page(
    page: Page, query: QueueQuery, status: int = 200, error: str = ""
) -> Response:
    me = page.me.admin
    people = await _people(page)
    saved = await saved_views.list_saved_views(page.db, page.workspace_id, me.id)
    return page.render(
        "inbox/queue.html",
        status,
        section="inbox",
        query=query,
        page_rows=await _read(page, query, people),
        rows_url=rows_url(query),
        views=VIEWS,
        counts=await _counts(page),
        people=sorted(people.items(), key=lambda item: item[1].casefold()),
        labels=await page.every(list_labels),
        saved=saved,
        saved_urls={view.id: QueueQuery.of(view.filter).url() for view in saved},
        statuses=STATUSES,
        bulk_statuses=_bulk_statuses(query),
        priorities=PRIORITIES,
        filter_names=FILTER_NAMES,
        error=error,
        live_url=await live_url(page),
    )


# --- Bulk changes ----------------------------------------------------------------------


def _back(page: Page) -> str:
    """Where a form returns to: an address of the queue, never anywhere else."""
    back = page.field("back")
    parts = urlsplit(back)
    if parts.scheme or parts.netloc or not parts.path.startswith("/inbox/"):
        return "/inbox/"
    return back


def _query_of(address: str) -> QueueQuery:
    return QueueQuery.of(dict(parse_qsl(urlsplit(address).query)))


def _bulk_statuses(query: QueueQuery) -> list[str]:
    """The statuses the bar offers: where an issue the page shows may move, so that none
    is refused for every issue (`closed` only from `solved`, nothing back to `new`)."""
    shown = (query.status,) if query.status in STATUSES else query.shape.statuses
    reachable = set().union(*(TRANSITIONS[status] for status in shown))
    return [status for status in STATUSES if status in reachable]


def _bulk_change(page: Page) -> BulkChange | str:
    """The change the bar asks for, or what is missing from it."""
    ids = [value for value in page.form.getlist("ids") if isinstance(value, str) and value]
    if not ids:
        return "Select at least one issue."
    assignee = page.field("assignee")
    change = BulkChange(
        ids=ids,
        status=page.field("status") or None,
        add_label_ids=[page.field("add_label")] if page.field("add_label") else [],
        remove_label_ids=[page.field("remove_label")] if page.field("remove_label") else [],
        assign=bool(assignee),
        assignee_id=None if assignee in ("", "none") else assignee,
    )
    changes = (change.status, change.add_label_ids, change.remove_label_ids, change.assign)
    return change if any(changes) else "Choose a status, an assignee or a label to change."


async def _bulk_failure(page: Page, error: DomainError) -> tuple[int, str]:
    missing = [f.field for f in error.fields if f.code == ErrorCode.NOT_FOUND]
    if missing:
        return 404, "Nothing was changed: some of the selected issues are not in this workspace."
    # A label or person of another workspace (or none): 404, as the issue page answers.
    if any(f.code == FieldCode.UNKNOWN for f in error.fields):
        return 404, f"Nothing was changed: {explained(error)}"
    refused = [f.field for f in error.fields if f.field.startswith("iss_")]
    if refused:
        found = await fetch_issues(page.db, page.workspace_id, refused)
        numbers = sorted(issue.ticket_number for issue in found.values())
        which = ", ".join(f"#{number}" for number in numbers)
        return 422, (
            f"Nothing was changed: {which} cannot take this change (a closed or merged "
            "issue, or a status it cannot move to from its own)."
        )
    return 422, f"Nothing was changed: {error.message}"


async def bulk_update(page: Page) -> Response:
    back = _back(page)
    change = _bulk_change(page)
    if isinstance(change, str):
        return await _queue_page(page, _query_of(back), 422, change)
    try:
        changed = await update_issues(page.db, member_actor(page), page.workspace_id, change)
    except DomainError as error:
        status, message = await _bulk_failure(page, error)
        return await _queue_page(page, _query_of(back), status, message)
    page.session.tell(f"Updated {len(changed)} issue{'s' if len(changed) != 1 else ''}.")
    return redirect(back)


# --- Saved views -----------------------------------------------------------------------


async def save_view(page: Page) -> Response:
    query = QueueQuery.of({name: page.field(name) for name in FILTER_NAMES})
    try:
        view = await saved_views.save_view(
            page.db,
            page.workspace_id,
            page.me.admin.id,
            is_admin=page.me.admin.is_admin,
            name=page.field("name"),
            wanted=query.filters,
            shared=page.field("shared") == "on",
        )
    except DomainError as error:
        if error.code == ErrorCode.FORBIDDEN:
            return page.problem(403, "Not allowed", "Only an admin shares a view with everyone.")
        message = {
            ErrorCode.LIMIT_REACHED: f"You keep {saved_views.MAX_VIEWS} views already: "
            "delete one first.",
        }.get(error.code, "Give the view a name of at most 50 characters.")
        return await _queue_page(page, query, 422, message)
    page.session.tell(f"Saved the view “{view.name}”.")
    return redirect(query.url())


async def delete_view(page: Page) -> Response:
    view_id = str(page.request.path_params["view_id"])
    try:
        view = await saved_views.delete_saved_view(
            page.db, page.workspace_id, page.me.admin.id, view_id, is_admin=page.me.admin.is_admin
        )
    except DomainError as error:
        if error.code == ErrorCode.FORBIDDEN:
            return page.problem(403, "Not allowed", "Only an admin deletes a shared view.")
        return page.problem(404, "View not found", "There is no such saved view here.")
    page.session.tell(f"Deleted the view “{view.name}”.")
    return redirect(_back(page))
